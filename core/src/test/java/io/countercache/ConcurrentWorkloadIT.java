package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writers insert, flip, reparent and delete comments at random (a tenth of their transactions rolled back) while three
 * rollup workers run at once; after the writers stop and the queue is drained, every counter equals its recount. A
 * watcher samples the server's row-lock waits all along: no rollup ever waits for a row lock, and no writer ever waits
 * for a rollup's. (Sessions that add pages to the same table still queue briefly for its extension lock.)
 */
class ConcurrentWorkloadIT {

    private static final int WRITERS = 6;
    private static final int TRANSACTIONS_PER_WRITER = Integer.getInteger("workload.transactions", 400);
    static final int USERS = 20;
    static final int ARTICLES = 30;

    /**
     * Row-lock waits that involve a rollup: the waiter's wait, its query and its blockers' queries, and whether every
     * one of them is a rollup (rounds may briefly wait for one another; an application session must never be in it).
     */
    static final String WAITS_ON_ROLLUP = "SELECT a.query ~ 'rollup_report|take_generation' AND NOT EXISTS (SELECT 1"
            + "      FROM pg_stat_activity b WHERE b.pid = ANY (pg_blocking_pids(a.pid)) AND b.query !~ 'rollup_report|take_generation'),"
            + " a.wait_event || ': ' || a.query || ' <- '"
            + "      || coalesce((SELECT string_agg(b.query, ' | ') FROM pg_stat_activity b"
            + "                    WHERE b.pid = ANY (pg_blocking_pids(a.pid))), '(gone)')"
            + " FROM pg_stat_activity a"
            + " WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()"
            + " AND a.wait_event_type = 'Lock' AND a.wait_event IN ('transactionid', 'tuple')"   // row locks, not extends
            + " AND (a.query ~ 'rollup_report|take_generation' OR EXISTS (SELECT 1 FROM pg_stat_activity b"
            + "      WHERE b.pid = ANY (pg_blocking_pids(a.pid)) AND b.query ~ 'rollup_report|take_generation'))";

    @Test
    void randomConcurrentWritesWithThreeRollupsEndExact() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(ConcurrentWorkloadIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO blog_user (id) SELECT g FROM generate_series(1, " + USERS + ") g;"
                + "INSERT INTO blog_article (id) SELECT g FROM generate_series(1, " + ARTICLES + ") g;");

        List<RollupWorker> workers = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            workers.add(RollupWorker.builder(db.dataSource()).batchSize(50).pollInterval(Duration.ofMillis(5))
                    .name("rollup-" + i).build().start());
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong samples = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
        Future<List<List<String>>> waits = pool.submit(() -> {
            List<List<String>> seen = new ArrayList<>();
            while (writing.get()) {
                seen.addAll(db.queryRows(WAITS_ON_ROLLUP));
                samples.incrementAndGet();
                Thread.sleep(5);                     // leave the two cores to the workload
            }
            return seen;
        });
        List<Future<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            long seed = 1000 + w;
            writers.add(pool.submit(() -> write(db, new SplittableRandom(seed), TRANSACTIONS_PER_WRITER)));
        }
        int committed = 0;
        for (Future<Integer> f : writers) {
            committed += f.get();
        }
        writing.set(false);
        List<List<String>> waitsSeen = waits.get();
        pool.shutdown();
        workers.forEach(RollupWorker::close);

        assertThat(committed).as("committed transactions").isPositive();
        assertThat(samples.get()).as("lock-wait samples taken").isPositive();
        assertThat(waitsSeen.stream().filter(w -> !w.get(0).equals("t")).toList())
                .as("waits between a rollup and an application session (waiter, query <- blockers)").isEmpty();
        System.out.println("ConcurrentWorkloadIT: " + waitsSeen.size() + " samples of a rollup waiting for another");
        assertThat(workers.stream().filter(w -> w.appliedDeltas() > 0).count())
                .as("workers that applied deltas while writers ran").isGreaterThanOrEqualTo(2);
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT sum(total_comments) FROM blog_article"))
                .isEqualTo(db.queryLong("SELECT count(*) FROM blog_comment WHERE article_id IS NOT NULL"));
    }

    private static int write(TestDatabase db, SplittableRandom random, int transactions) throws SQLException {
        int committed = 0;
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            for (int t = 0; t < transactions; t++) {
                committed += transaction(c, random) ? 1 : 0;
            }
        }
        return committed;
    }

    /** One random transaction of one to four steps, a tenth rolled back; returns whether it committed. */
    static boolean transaction(Connection c, SplittableRandom random) throws SQLException {
        int statements = 1 + random.nextInt(4);
        try {
            for (int s = 0; s < statements; s++) {
                step(c, random);
            }
        } catch (SQLException e) {
            // Writers may deadlock on the comment rows they update in random order; that is the workload's
            // own conflict, not a counter's, and the rolled back transaction must leave no trace.
            if (!"40P01".equals(e.getSQLState())) {
                throw e;
            }
            c.rollback();
            return false;
        }
        if (random.nextInt(10) == 0) {
            c.rollback();
            return false;
        }
        c.commit();
        return true;
    }

    static void step(Connection c, SplittableRandom random) throws SQLException {
        int user = 1 + random.nextInt(USERS);
        int article = 1 + random.nextInt(ARTICLES);
        String status = random.nextBoolean() ? "public" : "private";
        String sql = switch (random.nextInt(6)) {
            case 0, 1 -> "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (?, ?, ?, ?)";
            case 2 -> "UPDATE blog_comment SET publish_status = ?, likes = ? WHERE id = (SELECT id FROM blog_comment"
                    + " WHERE creator_id = ? AND article_id = ? LIMIT 1)";
            case 3 -> "UPDATE blog_comment SET article_id = ? WHERE id = (SELECT id FROM blog_comment WHERE creator_id = ?"
                    + " LIMIT 1) AND publish_status <> ?";
            case 4 -> "UPDATE blog_comment SET article_id = ?, creator_id = ?, publish_status = ? WHERE id ="
                    + " (SELECT max(id) FROM blog_comment)";
            default -> "DELETE FROM blog_comment WHERE id = (SELECT min(id) FROM blog_comment WHERE creator_id = ?"
                    + " AND article_id = ?)";
        };
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (sql.startsWith("INSERT")) {
                ps.setInt(1, user);
                ps.setInt(2, article);
                ps.setString(3, status);
                ps.setInt(4, random.nextInt(5));
            } else if (sql.contains("likes = ?")) {
                ps.setString(1, status);
                ps.setInt(2, random.nextInt(5));
                ps.setInt(3, user);
                ps.setInt(4, article);
            } else if (sql.contains("creator_id = ?, publish_status")) {
                ps.setInt(1, article);
                ps.setInt(2, user);
                ps.setString(3, status);
            } else if (sql.startsWith("UPDATE")) {
                ps.setInt(1, article);
                ps.setInt(2, user);
                ps.setString(3, status);
            } else {
                ps.setInt(1, user);
                ps.setInt(2, article);
            }
            ps.executeUpdate();
        }
    }
}
