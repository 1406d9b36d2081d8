package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker in a JVM of its own, killed with SIGKILL while its round is stalled mid-batch and writers keep writing:
 * nothing is lost and nothing is applied twice; a worker started afterwards ends every counter exact.
 */
class WorkerProcessIT {

    /** Runs a worker on the database of args[0..2] until killed (also {@link FaultsIT}'s worker of its own JVM). */
    public static void main(String[] args) throws Exception {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(args[0]);
        ds.setUser(args[1]);
        ds.setPassword(args[2]);
        RollupWorker.builder(ds).name("child").batchSize(100).pollInterval(Duration.ofMillis(10))
                .maxBackoff(Duration.ofSeconds(1)).build().start();
        Thread.sleep(Long.MAX_VALUE);
    }

    @Test
    void aWorkerJvmKilledMidBatchLosesNothing() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(WorkerProcessIT.class);
        BlogSchema.create(db);
        db.execute(RollupWorkerFaultsIT.STALL + RollupWorkerFaultsIT.COMMENTS_ONE_BY_ONE);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), WorkerProcessIT.class.getName(),
                db.jdbcUrl(), db.user(), db.password()).inheritIO().start();
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong written = new AtomicLong();
        Thread writer = new Thread(() -> {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                while (writing.get()) {
                    st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, "
                            + (1 + written.incrementAndGet() % 10) + ", 'public')");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            writer.start();
            until("the child's round stalled mid-batch", () -> db.queryLong(RollupWorkerFaultsIT.STALLED_ROUNDS) == 1);
            child.destroyForcibly().waitFor();                       // SIGKILL: no shutdown hook, no goodbye
        } finally {
            child.destroyForcibly();
            writing.set(false);
            writer.join();
        }
        assertThat(child.exitValue()).as("killed").isNotZero();
        assertThat(written.get()).as("comments written meanwhile").isPositive();
        db.execute("DELETE FROM stall");                             // the stalled backend finds its client gone
        until("the killed worker's backend is gone", () -> db.queryLong("SELECT count(*) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND query LIKE '%rollup_report%' AND state = 'active'"
                + " AND pid <> pg_backend_pid()") == 0);
        BlogSchema.assertExactAfterRollup(db);
    }
}
