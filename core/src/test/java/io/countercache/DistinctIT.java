package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.spi.Via;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Counts of distinct values ({@code BlogSchema.ARTICLE_COMMENTERS}, the public commenters of an article, and
 * {@code ORDER_AMOUNTS}, the different amounts of an order's lines, over uuid keys): every transition ends equal to
 * {@code count(DISTINCT ...)} of the source, the per-value counts hold one row per target and value, exact reads,
 * drift and the recount see both levels, the checks refuse what cannot be kept, and the interleavings of the argument
 * in {@code fold_distinct} (sql/rollup.sql) end exact.
 */
class DistinctIT {

    private static final int COMMENTERS = BlogSchema.ARTICLE_COMMENTERS.id();

    private TestDatabase db;
    private Sessions sessions;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(DistinctIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO blog_user (id) SELECT generate_series(1, 5); INSERT INTO blog_article (id) VALUES (1), (2);");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        sessions.close();
    }

    private static String comment(long user, long article, String status) {
        return "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (" + user + ", " + article + ", '"
                + status + "');";
    }

    private long commenters(long article) {
        return db.queryLong("SELECT commenters FROM blog_article WHERE id = " + article);
    }

    private long exact(long article) {
        return db.queryLong("SELECT value FROM countercache.exact(" + COMMENTERS + ", ARRAY[" + article + "]::bigint[])");
    }

    private long valueRows() {
        return db.queryLong("SELECT count(*) FROM countercache.distinct_value WHERE counter_id = " + COMMENTERS);
    }

    @Test
    void everyTransitionEndsAtTheDistinctCountOfTheSource() throws Exception {
        db.execute(comment(1, 1, "public") + comment(1, 1, "public") + comment(2, 1, "public") + comment(3, 1, "private"));
        assertThat(exact(1)).as("exact before the rollup").isEqualTo(2);
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isEqualTo(2);
        assertThat(valueRows()).as("one row per target and value").isEqualTo(2);

        db.execute("DELETE FROM blog_comment WHERE id = (SELECT min(id) FROM blog_comment WHERE creator_id = 1)");
        assertThat(exact(1)).as("user 1 still has a comment").isEqualTo(2);
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE creator_id = 3");   // starts counting
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isEqualTo(3);
        db.execute("UPDATE blog_comment SET creator_id = 2 WHERE creator_id = 3");              // the value changes
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isEqualTo(2);
        db.execute("UPDATE blog_comment SET article_id = 2 WHERE creator_id = 1");              // moved to another target
        BlogSchema.assertExactAfterRollup(db);
        assertThat(List.of(commenters(1), commenters(2))).containsExactly(1L, 1L);
        db.execute("UPDATE blog_comment SET creator_id = NULL WHERE creator_id = 1");           // no value: not counted
        BlogSchema.assertExactAfterRollup(db);
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status)"
                + " SELECT 1 + i % 5, 1 + i % 2, 'public' FROM generate_series(1, 1000) i");    // bulk
        BlogSchema.assertExactAfterRollup(db);
        assertThat(List.of(commenters(1), commenters(2))).containsExactly(5L, 5L);
        db.execute("DELETE FROM blog_comment WHERE creator_id IN (4, 5)");
        BlogSchema.assertExactAfterRollup(db);
        sessions.open("rolled back").run("BEGIN; DELETE FROM blog_comment; ROLLBACK");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.distinct_delta")).as("a rolled back delete").isZero();
        db.execute("DELETE FROM blog_article WHERE id = 2; INSERT INTO blog_article (id) VALUES (2)");  // a target goes
        BlogSchema.assertExactAfterRollup(db);
        db.execute("TRUNCATE blog_comment");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isZero();
        assertThat(valueRows()).as("a value whose count reaches 0 keeps no row").isZero();

        db.execute("INSERT INTO shop_order (id) VALUES ('00000000-0000-0000-0000-000000000001');"
                + "INSERT INTO shop_line (order_id, amount) VALUES ('00000000-0000-0000-0000-000000000001', 1),"
                + " ('00000000-0000-0000-0000-000000000001', 1), ('00000000-0000-0000-0000-000000000001', 2)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT amounts FROM shop_order")).isEqualTo(2);
    }

    /** Along a path: the different star ratings of a shop's reviews, and a product moved to another shop. */
    @Test
    void alongAPathAMovedMiddleRowMovesItsValues() throws Exception {
        CounterDefinition levels = new CounterDefinition("Shop.starLevels", new TableName("public", "shop"), "id",
                KeyType.BIGINT, "star_levels", "bigint", new TableName("public", "review"), "product_id", null, null,
                Strategy.QUEUE, 0, new Via(new TableName("public", "product"), "id", KeyType.BIGINT, "shop_id"), null,
                "stars");
        List<CounterDefinition> all = new java.util.ArrayList<>(BlogSchema.ALL);
        all.add(levels);
        BlogSchema.install(db, all);
        String wrong = "SELECT s.id FROM shop s WHERE s.star_levels <> (SELECT count(DISTINCT r.stars) FROM review r"
                + " JOIN product p ON p.id = r.product_id WHERE p.shop_id = s.id)";
        db.execute("INSERT INTO shop (id) VALUES (1), (2); INSERT INTO product (id, shop_id) VALUES (10, 1), (11, 1);"
                + "INSERT INTO review (product_id, stars, approved) VALUES (10, 5, true), (11, 5, true), (11, 3, false)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT star_levels FROM shop WHERE id = 1")).isEqualTo(2);
        db.execute("UPDATE product SET shop_id = 2 WHERE id = 11");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows(wrong)).isEmpty();
        assertThat(db.queryLong("SELECT star_levels FROM shop WHERE id = 2")).isEqualTo(2);
        db.execute("DELETE FROM product WHERE id = 10");   // its reviews go by cascade
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows(wrong)).isEmpty();
        assertThat(db.queryLong("SELECT star_levels FROM shop WHERE id = 1")).isZero();
    }

    @Test
    void driftShowsEitherLevelWrongAndTheRecountCorrectsBoth() {
        db.execute(comment(1, 1, "public") + comment(2, 1, "public") + comment(1, 2, "public"));
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_article SET commenters = 7 WHERE id = 1;"                  // the column is wrong
                + "UPDATE countercache.distinct_value SET n = 3 WHERE target_id = 2");      // a value's count is wrong
        assertThat(db.queryRows("SELECT key, stored::text, pending::text, exact::text FROM countercache.drift("
                + COMMENTERS + ")")).containsExactly(List.of("1", "7", "0", "2"), List.of("2", "1", "0", "1"));
        assertThat(db.queryLong("SELECT countercache.recount(" + COMMENTERS + ")")).isEqualTo(2);
        BlogSchema.assertExactAfterRollup(db);
        db.execute("DELETE FROM blog_comment WHERE article_id = 2");                        // the count was 3, not 1
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows("SELECT key FROM countercache.drift(" + COMMENTERS + ")")).isEmpty();

        db.execute("DELETE FROM countercache.distinct_value; UPDATE blog_article SET commenters = 0");  // rebuilt from nothing
        assertThat(db.queryLong("SELECT countercache.recount(" + COMMENTERS + ")")).isEqualTo(1);
        BlogSchema.assertExactAfterRollup(db);
        assertThat(valueRows()).isEqualTo(2);
    }

    @Test
    void whatCannotBeKeptIsRefusedWithTheFix() throws Exception {
        CounterDefinition times = new CounterDefinition("User.commentDays", BlogSchema.USER, "id", KeyType.BIGINT,
                "comment_days", "bigint", BlogSchema.COMMENT, "creator_id", null, null, Strategy.QUEUE, 0, null, null,
                "likes");
        for (Strategy strategy : List.of(Strategy.UNLOGGED, Strategy.DIRECT, Strategy.SLOTTED)) {
            assertThatThrownBy(() -> BlogSchema.install(db, List.of(times.withStrategy(strategy, 4))))
                    .hasMessageContaining("a count of distinct values cannot use strategy " + strategy.sqlName())
                    .hasMessageContaining("use strategy QUEUE");
        }
        db.execute("ALTER TABLE blog_comment ADD COLUMN posted_at timestamptz");
        CounterDefinition instants = new CounterDefinition("User.instants", BlogSchema.USER, "id", KeyType.BIGINT,
                "instants", "bigint", BlogSchema.COMMENT, "creator_id", null, null, Strategy.QUEUE, 0, null, null,
                "posted_at");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(instants)))
                .hasMessageContaining("distinct column public.blog_comment.posted_at is timestamp with time zone")
                .hasMessageContaining("count the distinct values of an existing integer, uuid, text or boolean column");
        // 'bob' and 'BOB' are one value to count(DISTINCT) under a case-insensitive collation, two as text
        db.execute("CREATE COLLATION IF NOT EXISTS ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);"
                + " ALTER TABLE blog_comment ADD COLUMN author text COLLATE ci");
        CounterDefinition authors = new CounterDefinition("User.authors", BlogSchema.USER, "id", KeyType.BIGINT,
                "authors", "bigint", BlogSchema.COMMENT, "creator_id", null, null, Strategy.QUEUE, 0, null, null,
                "author");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(authors)))
                .hasMessageContaining("distinct column public.blog_comment.author has a nondeterministic collation")
                .hasMessageContaining("give the column a deterministic collation");
        assertThatThrownBy(() -> new CounterDefinition("User.both", BlogSchema.USER, "id", KeyType.BIGINT, "both",
                "bigint", BlogSchema.COMMENT, "creator_id", null, "likes", Strategy.QUEUE, 0, null, null, "likes"))
                .hasMessageContaining("declare one of sum, min, max and distinct");
        db.execute(comment(1, 1, "public"));
        BlogSchema.assertExactAfterRollup(db);
        assertThat(valueRows()).isEqualTo(1);
        BlogSchema.install(db, BlogSchema.ALL.stream().filter(c -> c != BlogSchema.ARTICLE_COMMENTERS).toList());
        assertThat(valueRows()).as("a forgotten counter's values go with it").isZero();
    }

    /**
     * A value's last row deleted while another transaction inserts a row with the same value: neither sees the other's
     * row, so a writer that judged "is this value new to the target?" in its own snapshot would count 0. Each queues
     * its -1 and +1 for the value, and the count per value ends at 1.
     */
    @Test
    void aValuesLastRowDeletedWhileAnotherTransactionInsertsOne() throws Exception {
        BlogSchema.assertExactAfterRollup(db);
        db.execute(comment(1, 1, "public"));
        BlogSchema.assertExactAfterRollup(db);
        Session deleter = sessions.open("deleter"), inserter = sessions.open("inserter");
        deleter.run("BEGIN; DELETE FROM blog_comment WHERE creator_id = 1");
        inserter.run("BEGIN; " + comment(1, 1, "public"));
        deleter.run("COMMIT");
        db.queryLong("SELECT countercache.rollup(100)");
        assertThat(commenters(1)).as("the only row is gone, the new one not yet committed").isZero();
        inserter.run("COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isEqualTo(1);
    }

    /**
     * Rounds that fold a value's +1 and -1 commit in the opposite order: the round holding the -1 runs while a session
     * holds the +1's queue row, so the count goes to -1 and the column does not move; the +1 then brings it to 0, and
     * the column does not move either. A rollup that dropped a count at or below 0 would count 1 here.
     */
    @Test
    void aValuesMinusOneFoldedBeforeItsPlusOneMovesNothing() throws Exception {
        BlogSchema.assertExactAfterRollup(db);
        db.execute(comment(1, 1, "public") + "DELETE FROM blog_comment;");
        Session holder = sessions.open("holder");
        holder.run("BEGIN; SELECT FROM countercache.distinct_delta WHERE delta = 1 FOR UPDATE");
        db.queryLong("SELECT countercache.rollup(100)");                         // folds the -1 only
        assertThat(db.queryLong("SELECT n FROM countercache.distinct_value")).isEqualTo(-1);
        assertThat(commenters(1)).isZero();
        assertThat(exact(1)).as("exact while the +1 waits").isZero();
        holder.run("COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isZero();
        assertThat(valueRows()).isZero();
    }

    /**
     * Two rounds with a value's +1 and -1 at once: the second finds the counter's values held by the first and, rather
     * than wait for the first's uncommitted count, leaves its -1 queued; neither round moves the column twice. A round
     * that upserted without the counter's lock would wait here (Session.run fails on a wait).
     */
    @Test
    void aRoundFindsTheCounterAnotherRoundFoldsAndLeavesItsValuesQueued() throws Exception {
        BlogSchema.assertExactAfterRollup(db);
        db.execute(comment(1, 1, "public") + "DELETE FROM blog_comment;");
        Session first = sessions.open("first"), second = sessions.open("second");
        sessions.open("in flight").run(BlogSchema.A_ROUND_IN_FLIGHT);          // so that the two rounds overlap
        first.run("BEGIN; SELECT countercache.rollup(1)");                     // the +1: the count is 1, uncommitted
        second.run("SELECT countercache.rollup(1)");                           // the -1: left, not waited for
        assertThat(first.queryLong("SELECT delta FROM countercache.distinct_delta")).as("left queued").isEqualTo(-1);
        first.run("COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(commenters(1)).isZero();
        assertThat(valueRows()).isZero();
    }
}
