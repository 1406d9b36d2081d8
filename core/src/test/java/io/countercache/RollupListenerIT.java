package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/** What a RollupListener hears, for every key type, and what happens to a round when it fails. */
class RollupListenerIT {

    private static final UUID ORDER = UUID.fromString("00000000-0000-0000-0000-00000000000a");

    private static TestDatabase shop() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(RollupListenerIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO shop_order (id) VALUES ('" + ORDER + "');"
                + "INSERT INTO shop_line (order_id, amount) VALUES ('" + ORDER + "', 5), ('" + ORDER + "', 7);"
                + "INSERT INTO tag (id) VALUES (3), (4); INSERT INTO tagging (tag_id) VALUES (3), (4), (4);"
                + "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (9);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 9, 'public')");
        return db;
    }

    @Test
    void theListenerHearsTheKeysOfEveryKeyTypeBeforeTheCommitAndTheEndAfter() throws Exception {
        TestDatabase db = shop();
        Map<Integer, List<Object>> heard = new ConcurrentHashMap<>();
        AtomicInteger committed = new AtomicInteger();
        RollupWorker w = RollupWorker.builder(db.dataSource()).listener(touched -> {
            assertThat(db.queryLong("SELECT total FROM shop_order")).as("total seen before the commit").isZero();
            heard.putAll(touched);
            return ok -> committed.addAndGet(ok ? 1 : 0);
        }).build();
        // a tag whose sums fold to 0 in the round: its row does not change, and the listener does not hear it
        db.execute("INSERT INTO tag (id) VALUES (5); INSERT INTO tagging (tag_id) VALUES (5);"
                + " DELETE FROM tagging WHERE tag_id = 5");
        assertThat(w.drain()).isPositive();

        assertThat(committed.get()).as("rounds that told the listener they committed").isEqualTo(1);
        assertThat(heard.get(BlogSchema.ORDER_TOTAL.id())).as("uuid keys").containsExactly(ORDER);
        assertThat(heard.get(BlogSchema.TAG_USES.id())).as("integer keys, as Long").containsExactlyInAnyOrder(3L, 4L);
        assertThat(heard.get(BlogSchema.ARTICLE_COMMENTS.id())).as("bigint keys").containsExactly(9L);
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void aRoundWhoseListenerFailsRollsBackAndIsRetried() throws Exception {
        TestDatabase db = shop();
        long queued = db.queryLong("SELECT depth FROM countercache.queue_state()");
        AtomicInteger failuresLeft = new AtomicInteger(3);
        try (RollupWorker w = RollupWorker.builder(db.dataSource()).pollInterval(Duration.ofMillis(10))
                .maxBackoff(Duration.ofMillis(50)).listener(touched -> {
                    if (failuresLeft.getAndDecrement() > 0) {
                        throw new IllegalStateException("cache unavailable");
                    }
                    return ok -> { };
                }).build().start()) {
            until("three failed rounds", () -> w.failures() >= 3);
            // the worker counts a round's deltas once it has committed, which the depth shows first
            until("every delta applied once the listener works", () -> w.appliedDeltas() >= queued);
            assertThat(w.appliedDeltas()).as("every delta applied once, by the round that committed").isEqualTo(queued);
            assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isZero();
        }
        BlogSchema.assertExactAfterRollup(db);
    }
}
