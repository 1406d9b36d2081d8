package io.countercache.cli;

import io.countercache.RollupWorker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Fixes drift online: a recount of each counter in batches of target keys, each its own short transaction that holds
 * no lock a writer waits for, then a drain, so the counters end exact while writes and workers go on.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = "Recount counters online, in batches, and roll the corrections up.")
final class Repair implements Callable<Integer> {

    /**
     * One batch of a counter's recount while it is still requested, or no row once it is not: a rollup worker may run
     * the batches too, and a {@code recount_step} after a worker ran the job to its end would start it again from the
     * first key.
     */
    static final String STEP = "SELECT done, targets, corrected FROM countercache.continue_recount(?, ?)";

    @Mixin
    Database database;

    @Option(names = "--counter", paramLabel = "NAME", description = "Only this counter (schema.table.column).")
    String counter;

    @Option(names = "--batch-size", defaultValue = "" + RollupWorker.DEFAULT_BATCH_SIZE,
            description = "Target keys per batch (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Override
    public Integer call() throws Exception {
        try (Connection c = database.connect();
             PreparedStatement request = c.prepareStatement("SELECT countercache.request_recount(?)");
             PreparedStatement step = c.prepareStatement(STEP)) {
            for (Object[] k : Database.counters(c, counter)) {
                request.setInt(1, (Integer) k[0]);
                request.execute();
                long targets = 0, corrected = 0, started = System.nanoTime();
                boolean elsewhere = false;
                for (boolean done = false; !done; ) {
                    step.setInt(1, (Integer) k[0]);
                    step.setInt(2, batchSize);
                    try (ResultSet rs = step.executeQuery()) {
                        elsewhere = !rs.next();
                        done = elsewhere || rs.getBoolean(1);
                        if (!elsewhere) {
                            targets += rs.getLong(2);
                            corrected += rs.getLong(3);
                        }
                    }
                    System.err.printf("%s: %,d targets checked, %,d corrected%n", k[1], targets, corrected);
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                System.out.printf(Locale.ROOT, "%s: %,d targets corrected of %,d checked in %.1f s"
                        + " (%,.0f targets/s)%s%n",
                        k[1], corrected, targets, seconds, targets / seconds,
                        elsewhere ? "; a worker (or another session) checked the rest" : "");
            }
            Drain.Drained d = Drain.drain(c, batchSize);
            Drain.report(d);
            return d.waiting() || d.deadLettered() > 0 ? 1 : 0;   // dead letters put back and refused again
        }
    }
}
