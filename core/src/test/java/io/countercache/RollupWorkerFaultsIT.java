package io.countercache;

import io.countercache.micrometer.RollupWorkerMeters;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker under faults. A trigger on the target table stalls every rollup round mid-batch (after the claim,
 * before the commit) for as long as a row sits in {@code stall}; each test then breaks the round in its own way and
 * checks that no delta is lost: every counter ends equal to its recount.
 */
class RollupWorkerFaultsIT {

    static final String STALL = """
            CREATE TABLE stall (since timestamptz NOT NULL DEFAULT now());
            CREATE FUNCTION stall_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                WHILE EXISTS (SELECT 1 FROM public.stall) LOOP   -- the rollup pins search_path
                    PERFORM pg_catalog.pg_sleep(0.02);
                END LOOP;
                RETURN NEW;
            END $$;
            CREATE TRIGGER stall_rollup BEFORE UPDATE ON blog_article FOR EACH ROW EXECUTE FUNCTION stall_rollup();
            INSERT INTO stall DEFAULT VALUES;
            """;
    static final String STALLED_ROUNDS = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            + " AND query LIKE '%rollup_report%' AND wait_event = 'PgSleep'";
    /**
     * What is queued, per counter and key. Not the rows: a worker's take, before a round or when it comes back after a
     * failure, may fold the generation writers left into one row per key (925 rows into 100 and 145 in CI), which
     * keeps these sums; a round that committed would change them.
     */
    static final String PENDING = "SELECT counter_id, target_id, target_uuid, sum(delta) FROM countercache.delta"
            + " GROUP BY 1, 2, 3 UNION ALL SELECT counter_id, NULL::bigint, NULL::uuid, count(*)"
            + " FROM countercache.distinct_delta GROUP BY 1 ORDER BY 1, 2, 3";
    /** Users, articles and 300 comments, each inserted by a statement of its own, so each queues its own deltas. */
    static final String COMMENTS_ONE_BY_ONE = """
            INSERT INTO blog_user (id) SELECT g FROM generate_series(1, 5) g;
            INSERT INTO blog_article (id) SELECT g FROM generate_series(1, 10) g;
            DO $$ BEGIN FOR g IN 1..300 LOOP
                INSERT INTO blog_comment (creator_id, article_id, publish_status, likes)
                VALUES (1 + g % 5, 1 + g % 10, CASE WHEN g % 3 = 0 THEN 'public' ELSE 'draft' END, g % 4);
            END LOOP; END $$;
            """;

    private TestDatabase db;

    @BeforeEach
    void blogWithQueuedDeltas() throws SQLException {
        db = TestPostgres.newDatabase(RollupWorkerFaultsIT.class);
        BlogSchema.create(db);
        db.execute(STALL + COMMENTS_ONE_BY_ONE);
    }

    private RollupWorker.Builder worker() {
        return RollupWorker.builder(db.dataSource()).name("faulty").batchSize(100)
                .pollInterval(Duration.ofMillis(10)).maxBackoff(Duration.ofMillis(200));
    }

    /** Deltas queued: in the queue and in the queue of values. */
    private long queued() {
        return db.queryLong("SELECT depth FROM countercache.queue_state()");
    }

    private void awaitStalledRound() throws InterruptedException {
        until("a rollup round stalled mid-batch", () -> db.queryLong(STALLED_ROUNDS) == 1);
    }

    @Test
    void aWorkerWhoseConnectionIsKilledMidBatchLosesNothingAndRecovers() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (RollupWorker w = worker().build()) {
            new RollupWorkerMeters(w).bindTo(registry);
            w.start();
            awaitStalledRound();
            // read beside the stalled round, which keeps no reader waiting; a take before it may have folded the
            // generation writers left, so the depth is this, not the depth before the worker started
            long before = queued();
            List<List<String>> pending = db.queryRows(PENDING);
            assertThat(w.metrics().queueDepth()).as("the worker's metrics, beside its stalled round").isEqualTo(before);
            assertThat(db.queryLong("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND query LIKE '%rollup_report%' AND wait_event = 'PgSleep'"))
                    .as("rollup backends terminated").isEqualTo(1);
            until("the worker to notice", () -> w.failures() > 0);
            assertThat(db.queryRows(PENDING)).as("what is queued after the kill: the claimed batch rolled back")
                    .isEqualTo(pending);
            assertThat(w.metrics().lastError()).as("connection lost: admin shutdown or I/O error").containsPattern("^SQLState (57P01|08006): ");
            assertThat(registry.get("countercache.rollup.failures").functionCounter().count()).isPositive();
            db.execute("INSERT INTO countercache.recount_job (counter_id, targets)"
                    + " SELECT k.id, 7 FROM countercache.counter k ORDER BY k.id LIMIT 1");
            assertThat(w.metrics().recounts()).as("recounts requested").isOne();
            assertThat(w.metrics().recountTargets()).as("their progress").isEqualTo(7);
            assertThat(registry.get("countercache.recount.targets").gauge()).isNotNull();
            db.execute("DELETE FROM countercache.recount_job");

            db.execute("DELETE FROM stall");
            until("the queue to drain", () -> queued() == 0);
            assertThat(w.isRunning()).isTrue();
            until("the worker to report recovery", () -> w.metrics().lastError() == null);
            assertThat(registry.get("countercache.deltas.applied").functionCounter().count()).isEqualTo(w.appliedDeltas());
            assertThat(registry.get("countercache.queue.depth").gauge().value()).isZero();
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    /**
     * Recounts that keep failing while rounds succeed: the rounds go on, and the failure is the maintenance's own,
     * retried with its own backoff, not a failed round each poll (which logged twice a poll and never backed off).
     */
    @Test
    void aRecountThatKeepsFailingNeitherStopsNorFailsTheRounds() throws Exception {
        db.execute("DELETE FROM stall;"
                + " CREATE FUNCTION public.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " RAISE EXCEPTION 'recounts refused here'; END $$;"
                + " CREATE TRIGGER refuse BEFORE UPDATE OR DELETE ON countercache.recount_job"
                + " FOR EACH ROW EXECUTE FUNCTION public.refuse();"
                + " INSERT INTO countercache.recount_job (counter_id, targets) VALUES (" + BlogSchema.ARTICLE_COMMENTS.id() + ", 0)");
        try (RollupWorker w = worker().build().start()) {
            until("the queue to drain", () -> queued() == 0);
            until("a recount to fail", () -> String.valueOf(w.metrics().lastError()).contains("recounts refused here"));
            Thread.sleep(300);   // a dozen polls
            assertThat(w.failures()).as("failed rounds").isZero();
            db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
            until("a round after the failures", () -> queued() == 0);
            db.execute("DROP TRIGGER refuse ON countercache.recount_job");
            until("the recount to finish", () -> db.queryLong("SELECT count(*) FROM countercache.recount_job") == 0);
            until("the recovered recount's error to be cleared", () -> w.metrics().lastError() == null);
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    /**
     * A worker waiting for a connection (from a pool whose database is gone, as at a JVM's exit when the database
     * stopped first) has no round to finish: close() ends the wait at once. It used to wait out the shutdown timeout,
     * here ten minutes, before anything could stop the thread.
     */
    @Test
    void closeEndsAWaitForAConnectionWithoutWaitingOutTheTimeout() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        ConnectionSource gone = () -> {
            asked.countDown();
            try {
                new CountDownLatch(1).await();   // a pool that never hands out a connection
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new SQLException("interrupted while waiting for a connection");
        };
        RollupWorker w = RollupWorker.builder(gone).name("gone").shutdownTimeout(Duration.ofMinutes(10)).build()
                .start();
        asked.await();
        Thread closing = new Thread(w::close);
        closing.start();
        until("close() to return", () -> !closing.isAlive());
        assertThat(w.isRunning()).isFalse();
    }

    /**
     * A read of the queue's state behind a lock on the queue (a migration's, a long take's) fails after a bounded
     * time, so that a metrics scrape or a health probe reports an error instead of hanging with it.
     */
    @Test
    void aReadOfTheQueueBehindALockFailsInsteadOfHanging() throws Exception {
        RollupWorker w = worker().build();
        try (Connection holder = db.dataSource().getConnection(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE countercache.delta IN ACCESS EXCLUSIVE MODE");
            CompletableFuture<Object> read = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return w.metrics();
                        } catch (RuntimeException e) {
                            return e;
                        }
                    });
            until("the read to give up", read::isDone);
            assertThat(read.get()).isInstanceOf(CounterCacheException.class).asString().contains("SQLState 57014");
            holder.rollback();
        }
    }

    /** A worker whose connections carry a session setting (a timeout). */
    private RollupWorker.Builder workerWith(String setting) {
        ConnectionSource connections = () -> {
            Connection c = db.dataSource().getConnection();
            try (Statement st = c.createStatement()) {
                st.execute(setting);
            }
            return c;
        };
        return RollupWorker.builder(connections).name("timeout").batchSize(100)
                .pollInterval(Duration.ofMillis(10)).maxBackoff(Duration.ofMillis(200));
    }

    @Test
    void aStatementTimeoutIsRetriedWithBackoffUntilTheRoundFits() throws Exception {
        long before = queued();
        List<List<String>> pending = db.queryRows(PENDING);
        try (RollupWorker w = workerWith("SET statement_timeout = '300ms'").build().start()) {
            until("two timed-out rounds", () -> w.failures() >= 2);
            assertThat(w.metrics().lastError()).startsWith("SQLState 57014");
            // not the worker's count against the depth: a take may fold between the two reads (CI saw 0 against 780)
            assertThat(db.queryRows(PENDING)).as("what is queued after timed-out rounds: they applied nothing")
                    .isEqualTo(pending);
            db.execute("DELETE FROM stall");
            // the worker counts a round's deltas once it has committed, which the depth shows first
            until("every queued delta applied", () -> w.appliedDeltas() >= before);
            assertThat(w.appliedDeltas()).as("a take's folded deltas and the rounds' add up").isEqualTo(before);
            assertThat(queued()).isZero();
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void aTargetTableHeldByDdlKeepsItsDeltasQueuedWhileTheOtherTablesFlow() throws Exception {
        db.execute("DELETE FROM stall");
        // what the article's deltas add up to, per counter and key: a round that gives the table up may queue them
        // back folded, in fewer rows (its distinct counter's values become deltas of its column on the way: left out)
        String articleSums = "SELECT coalesce(sum(s.n * hashtext(s.counter_id || ':' || s.target_id)), 0) FROM"
                + " (SELECT d.counter_id, d.target_id, sum(d.delta) AS n FROM countercache.delta d"
                + " JOIN countercache.counter k ON k.id = d.counter_id WHERE k.target_table = 'blog_article'"
                + " AND k.distinct_column IS NULL GROUP BY 1, 2) s";
        long before = db.queryLong(articleSums);
        String otherDeltas = "SELECT count(*) FROM countercache.delta d JOIN countercache.counter k"
                + " ON k.id = d.counter_id WHERE k.target_table <> 'blog_article'";
        try (Connection holder = db.dataSource().getConnection(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE blog_article IN ACCESS EXCLUSIVE MODE");   // as an ALTER TABLE would
            try (RollupWorker w = worker().build().start()) {
                until("every delta but the locked table's applied", () -> db.queryLong(otherDeltas) == 0);
                assertThat(db.queryLong(articleSums)).as("the locked table's deltas, kept").isEqualTo(before);
                assertThat(w.failures()).as("failed rounds: the lock timeout gives up one table, not the round")
                        .isZero();
                assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).as("dead letters").isZero();
                holder.commit();
                until("the queue to drain", () -> queued() == 0);
            }
        }
        assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).isZero();
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void shutdownLetsTheRoundInProgressCommit() throws Exception {
        long before = queued();
        RollupWorker w = worker().shutdownTimeout(Duration.ofSeconds(60)).build().start();
        awaitStalledRound();
        Thread closing = new Thread(w::close);
        closing.start();
        until("close() to wait for the round in progress", () -> closing.getState() == Thread.State.TIMED_WAITING);
        db.execute("DELETE FROM stall");          // the stalled round may now finish
        closing.join();

        assertThat(w.isRunning()).isFalse();
        // a batch of the queue and a batch of values (the 100 public comments' commenters), or the whole generation
        // of the queue when the round took it (docs/architecture.md, "Generations")
        assertThat(w.appliedDeltas()).as("deltas of the one round that was in progress").isPositive()
                .isEqualTo(before - queued());
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void shutdownAbandonsAStuckRoundAndLeavesItsDeltasQueued() throws Exception {
        long before = queued();
        RollupWorker w = worker().shutdownTimeout(Duration.ofMillis(200)).build().start();
        awaitStalledRound();
        long stalled = queued();   // a take before the round may have folded the generation writers left
        w.close();                                // gives up after 200 ms and cancels the round
        until("the worker thread to end", () -> !w.isRunning());
        until("the cancelled round to end", () -> db.queryLong(STALLED_ROUNDS) == 0);

        assertThat(w.appliedDeltas()).as("what the take folded; the abandoned round counts nothing").isEqualTo(before - stalled);
        assertThat(queued()).as("deltas queued after an abandoned round").isEqualTo(stalled);
        db.execute("DELETE FROM stall");
        BlogSchema.assertExactAfterRollup(db);
    }
}
