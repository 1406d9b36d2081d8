package io.countercache;

import io.countercache.testing.RestartablePostgres;
import io.countercache.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults injected one at a time into one randomized concurrent workload: four writers insert, flip, reparent and
 * delete comments (a tenth of their transactions rolled back), two rollup workers run in this JVM and one in a JVM
 * of its own, all three as the least-privileged worker role of docs/security.md. Each fault strikes again and again
 * while the load runs. After every strike the counters are checked in one snapshot: stored + pending = recount for
 * every key (drift 0). After the load, the workers must empty the queue on their own, nothing may be dead-lettered,
 * and every counter must equal its recount.
 *
 * <p>Each run starts a server of its own, since one fault restarts it. {@code -Dfaults.seconds=N} (default 6) sets
 * how long the load runs; {@code -Dfaults.seed=N} replays the writers' random choices.
 */
class FaultsIT {

    enum Fault {
        /** {@code pg_terminate_backend} of a random writer, most often in the middle of its transaction. */
        WRITER_TERMINATED,
        /** {@code pg_terminate_backend} of every rollup worker's session, rounds in flight included. */
        WORKER_TERMINATED,
        /** SIGKILL of the worker's JVM; a new one is started in its place. */
        WORKER_JVM_KILLED,
        /** An immediate stop of PostgreSQL (SIGQUIT: what a crash does), then a restart; nothing is told to anyone. */
        POSTGRES_IMMEDIATE_STOP,
        /** The worker role loses UPDATE on one target table, then gets it back. */
        WORKER_GRANT_LOST
    }

    private static final String WORKER = "countercache-worker";
    private static final String WORKER_JVM = "countercache-worker-jvm";
    private static final String WRITER = "fault-writer";
    private static final String DRIFT = "SELECT coalesce(sum(abs(d.exact - d.stored - d.pending)), 0)"
            + " FROM countercache.counter k, countercache.drift(k.id, 1000000) d";
    private static final String QUEUED = "SELECT count(*) FROM countercache.delta";

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @ParameterizedTest
    @EnumSource(Fault.class)
    void everyFaultEndsAtDriftZero(Fault fault) throws Exception {
        long seed = Long.getLong("faults.seed", System.nanoTime());
        long seconds = Long.getLong("faults.seconds", 6);
        System.out.println("FaultsIT " + fault + " seed " + seed + " (-Dfaults.seed=" + seed + " replays it), "
                + seconds + " s");
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            TestDatabase db = new TestDatabase("postgres", pg.jdbcUrl(), "postgres", "postgres", pg.dataSource());
            BlogSchema.create(db);
            db.execute("INSERT INTO blog_user (id) SELECT g FROM generate_series(1, " + ConcurrentWorkloadIT.USERS + ") g;"
                    + "INSERT INTO blog_article (id) SELECT g FROM generate_series(1, " + ConcurrentWorkloadIT.ARTICLES
                    + ") g; CREATE ROLE countercache_worker LOGIN PASSWORD 'worker';" + RolesIT.script("worker"));

            List<RollupWorker> workers = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                workers.add(RollupWorker.builder(dataSource(pg, "countercache_worker", "worker", WORKER))
                        .batchSize(50).pollInterval(Duration.ofMillis(5)).maxBackoff(Duration.ofSeconds(1))
                        .name("fault-rollup-" + i).build().start());
            }
            Process child = startWorkerJvm(pg);
            ExecutorService pool = Executors.newCachedThreadPool();
            List<Future<Long>> writers = new ArrayList<>();
            SplittableRandom seeds = new SplittableRandom(seed);
            for (int w = 0; w < 4; w++) {
                writers.add(pool.submit(writer(dataSource(pg, "postgres", "postgres", WRITER), seeds.split())));
            }
            SplittableRandom random = seeds.split();
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            try {
                Thread.sleep(300);
                if (fault == Fault.WORKER_GRANT_LOST) {
                    loseAGrant(db, workers);
                } else {
                    for (int strikes = 0; strikes < 3 || System.nanoTime() < end; strikes++) {   // 3 at least
                        Thread.sleep(300 + random.nextInt(500));
                        child = strike(fault, pg, db, child);
                        count("strikes");
                        long drift = db.queryLong(DRIFT);
                        assertThat(drift).as("drift in one snapshot right after a strike").isZero();
                        count("drift checks at 0");
                    }
                }
                Thread.sleep(300);
                running.set(false);
                long committed = 0;
                for (Future<Long> w : writers) {
                    committed += w.get();
                }
                assertThat(committed).as("transactions the writers committed").isPositive();
                until("the workers to empty the queue on their own", () -> db.queryLong(QUEUED) == 0);
                System.out.println("FaultsIT " + fault + ": " + committed + " transactions committed, "
                        + workers.stream().mapToLong(RollupWorker::appliedDeltas).sum()
                        + " deltas applied by this JVM's workers, " + counts);
            } finally {
                running.set(false);
                child.destroyForcibly().waitFor();
                workers.forEach(RollupWorker::close);
                pool.shutdownNow();
            }
            if (fault == Fault.WRITER_TERMINATED || fault == Fault.POSTGRES_IMMEDIATE_STOP) {
                assertThat(counts.get("writer connections lost")).as("writers that lost their connection").isNotNull();
            }
            assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).as("dead letters").isZero();
            BlogSchema.assertExactAfterRollup(db);
        }
    }

    /** One strike of the fault; returns the worker JVM now running. */
    private Process strike(Fault fault, RestartablePostgres pg, TestDatabase db, Process child) throws Exception {
        switch (fault) {
            case WRITER_TERMINATED -> count("sessions terminated", db.queryLong("SELECT count(pg_terminate_backend(pid))"
                    + " FROM (SELECT pid FROM pg_stat_activity WHERE application_name = '" + WRITER + "'"
                    + " ORDER BY random() LIMIT 1) w"));
            case WORKER_TERMINATED -> {
                count("rounds in flight terminated", db.queryLong("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE application_name LIKE '" + WORKER + "%' AND query LIKE '%rollup_report%'"
                        + " AND state <> 'idle'"));
                count("sessions terminated", db.queryLong("SELECT count(pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE application_name LIKE '" + WORKER + "%'"));
            }
            case WORKER_JVM_KILLED -> {
                count("rounds in flight killed", db.queryLong("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE application_name = '" + WORKER_JVM + "' AND state <> 'idle'"));
                child.destroyForcibly().waitFor();                   // SIGKILL: no shutdown hook, no goodbye
                return startWorkerJvm(pg);
            }
            case POSTGRES_IMMEDIATE_STOP -> {
                pg.immediateStop();
                pg.restart();
            }
            case WORKER_GRANT_LOST -> throw new IllegalArgumentException("not a repeated strike");
        }
        return child;
    }

    /**
     * Revokes UPDATE on blog_user from the worker role until the workers have applied other tables' deltas and the
     * user counter's deltas are seen waiting, checks that nothing was dead-lettered meanwhile, and grants it back.
     */
    private void loseAGrant(TestDatabase db, List<RollupWorker> workers) throws Exception {
        String userDeltas = QUEUED + " WHERE counter_id = " + BlogSchema.USER_PUBLIC.id();
        db.execute("REVOKE UPDATE ON blog_user FROM countercache_worker");
        long before = workers.stream().mapToLong(RollupWorker::appliedDeltas).sum();
        until("other tables' deltas applied and the user counter's waiting while the grant is gone",
                () -> workers.stream().mapToLong(RollupWorker::appliedDeltas).sum() - before >= 300
                        && db.queryLong(userDeltas) > 0);
        count("user deltas waiting", db.queryLong(userDeltas));
        assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter"))
                .as("dead letters while the grant is gone").isZero();
        assertThat(db.queryLong(DRIFT)).as("drift while the grant is gone").isZero();
        db.execute(RolesIT.script("worker"));                       // the grant is back
    }

    /** Writes transactions until the load stops, connecting again whenever a fault takes its connection. */
    private Callable<Long> writer(PGSimpleDataSource ds, SplittableRandom random) {
        return () -> {
            long committed = 0;
            while (running.get()) {
                try (Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    while (running.get()) {
                        committed += ConcurrentWorkloadIT.transaction(c, random) ? 1 : 0;
                    }
                } catch (SQLException e) {
                    String state = String.valueOf(e.getSQLState());
                    if (!state.startsWith("08") && !state.startsWith("57P")) {
                        throw e;
                    }
                    count("writer connections lost");                // terminated, or the server is down
                    Thread.sleep(20);
                }
            }
            return committed;
        };
    }

    private static Process startWorkerJvm(RestartablePostgres pg) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WorkerProcessIT.class.getName(),
                pg.jdbcUrl() + "?ApplicationName=" + WORKER_JVM, "countercache_worker", "worker")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static PGSimpleDataSource dataSource(RestartablePostgres pg, String user, String password, String name) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.jdbcUrl());
        ds.setUser(user);
        ds.setPassword(password);
        ds.setApplicationName(name);
        return ds;
    }

    private void count(String what) {
        count(what, 1);
    }

    private void count(String what, long n) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(n);
    }
}
