package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What countercache.queue_state() reports, which health checks and metrics read: the depth exactly while it is small
 * (a drain loop waits for 0), the age of the first delta in queue order, and, over a backlog, an estimate that reads a
 * bounded part of the queue however long it is.
 */
class QueueStateIT {

    private static final String QUEUES = "('delta', 'delta_0', 'delta_1', 'delta_unlogged', 'distinct_delta', 'slot')";

    @Test
    void theDepthIsExactWhileSmallAndTheAgeIsThatOfTheFirstDeltaInQueueOrder() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(QueueStateIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public');"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 2, 'private')");
        long queued = db.queryLong("SELECT (SELECT count(*) FROM countercache.delta)"
                + " + (SELECT count(*) FROM countercache.distinct_delta)");
        assertThat(queued).isPositive();
        assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isEqualTo(queued);
        assertThat(oldest(db)).as("queued just now").isLessThan(600);

        // a dead letter retried a day after it was queued comes back last in queue order: not the rollup's lag
        db.execute("INSERT INTO countercache.delta (counter_id, target_id, delta, enqueued_at) VALUES ("
                + BlogSchema.ARTICLE_COMMENTS.id() + ", 1, 1, now() - interval '1 day')");
        assertThat(oldest(db)).as("queued just now, first").isLessThan(600);
        // a sum put back an hour ago under an id before every other: the first delta in queue order
        db.execute("INSERT INTO countercache.delta (id, counter_id, target_id, delta, enqueued_at) OVERRIDING SYSTEM VALUE"
                + " VALUES (-1, " + BlogSchema.ARTICLE_COMMENTS.id() + ", 1, 1, now() - interval '1 hour')");
        assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isEqualTo(queued + 2);
        assertThat(oldest(db)).isBetween(3600.0, 4200.0);

        // exact up to 100,000 deltas, and said to be more above
        db.execute("INSERT INTO countercache.delta_1 (counter_id, target_id, delta) SELECT "
                + BlogSchema.ARTICLE_COMMENTS.id() + ", 1, 1 FROM generate_series(1, " + (100_000 - queued - 2) + ")");
        assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isEqualTo(100_000);
        db.execute("INSERT INTO countercache.delta_1 (counter_id, target_id, delta) VALUES ("
                + BlogSchema.ARTICLE_COMMENTS.id() + ", 1, 1)");
        assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isGreaterThan(100_000);
    }

    private static double oldest(TestDatabase db) {
        return Double.parseDouble(db.queryRows("SELECT oldest_seconds FROM countercache.queue_state()").get(0).get(0));
    }

    /**
     * A backlog of 1,000,000 deltas: the depth is estimated within 25% (the number of pages a sample of about 500 of
     * 8,300 takes varies by about 4%) and said to be above the exact range, and the state reads fewer than a quarter of
     * the queued rows (a count and a minimum over the whole queue read all of them). Without parallel workers, whose
     * reads the transaction's statistics would not count.
     */
    @Test
    void aBacklogIsEstimatedWithoutReadingIt() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(QueueStateIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO countercache.delta_0 (counter_id, target_id, delta) SELECT "
                + BlogSchema.ARTICLE_COMMENTS.id() + ", g % 1000, 1 FROM generate_series(1, 1000000) g");
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);   // the table statistics of this transaction alone
            st.execute("SET LOCAL max_parallel_workers_per_gather = 0");
            long depth;
            try (ResultSet rs = st.executeQuery("SELECT depth FROM countercache.queue_state()")) {
                rs.next();
                depth = rs.getLong(1);
            }
            long read;
            try (ResultSet rs = st.executeQuery("SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)"
                    + " FROM pg_stat_xact_user_tables WHERE schemaname = 'countercache' AND relname IN " + QUEUES)) {
                rs.next();
                read = rs.getLong(1);
            }
            c.rollback();
            assertThat(depth).isGreaterThan(100_000).isCloseTo(1_000_000L, within(250_000L));
            assertThat(read).as("queued rows read").isPositive().isLessThan(250_000);
        }
    }
}
