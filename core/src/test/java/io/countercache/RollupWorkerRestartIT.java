package io.countercache;

import io.countercache.testing.RestartablePostgres;
import io.countercache.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database restart under a running worker: the server is stopped while a round is stalled mid-batch, stays down
 * while the worker retries, and comes back. The worker recovers by itself and every counter ends exact.
 */
class RollupWorkerRestartIT {

    @Test
    void theWorkerRidesOutARestartOfTheServerLosingNothing() throws Exception {
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            TestDatabase db = new TestDatabase("postgres", null, "postgres", "postgres", pg.dataSource());
            BlogSchema.create(db);
            db.execute(RollupWorkerFaultsIT.STALL + RollupWorkerFaultsIT.COMMENTS_ONE_BY_ONE);
            long queued = db.queryLong("SELECT depth FROM countercache.queue_state()");
            List<List<String>> before = db.queryRows(RollupWorkerFaultsIT.PENDING);

            try (RollupWorker w = RollupWorker.builder(pg.dataSource()).name("restart").batchSize(100)
                    .pollInterval(Duration.ofMillis(10)).maxBackoff(Duration.ofMillis(200)).build().start()) {
                until("a rollup round stalled mid-batch", () -> db.queryLong(RollupWorkerFaultsIT.STALLED_ROUNDS) == 1);
                pg.stop();
                long failuresWhileDown = w.failures();
                until("the worker to retry against the stopped server", () -> w.failures() >= failuresWhileDown + 2);
                assertThat(w.isRunning()).isTrue();
                pg.restart();

                assertThat(db.queryRows(RollupWorkerFaultsIT.PENDING))
                        .as("what is queued after the restart: the stalled round rolled back")
                        .isEqualTo(before);
                db.execute("DELETE FROM stall");
                // the worker counts a round's deltas once it has committed, which the depth shows first
                until("every queued delta applied", () -> w.appliedDeltas() >= queued);
                assertThat(w.appliedDeltas()).as("a take's folded deltas and the rounds' add up").isEqualTo(queued);
                assertThat(db.queryLong("SELECT depth FROM countercache.queue_state()")).isZero();
                until("the worker to report recovery", () -> w.metrics().lastError() == null);
            }
            BlogSchema.assertExactAfterRollup(db);
        }
    }
}
