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
             PreparedStatement step = c.prepareStatement("SELECT done, targets, corrected FROM countercache.recount_step(?, ?)")) {
            for (Object[] k : Database.counters(c, counter)) {
                request.setInt(1, (Integer) k[0]);
                request.execute();
                long targets = 0, corrected = 0, started = System.nanoTime();
                for (boolean done = false; !done; ) {
                    step.setInt(1, (Integer) k[0]);
                    step.setInt(2, batchSize);
                    try (ResultSet rs = step.executeQuery()) {
                        rs.next();
                        done = rs.getBoolean(1);
                        targets += rs.getLong(2);
                        corrected += rs.getLong(3);
                        if (!done && rs.getLong(2) == 0) {
                            Thread.sleep(50);   // another session holds this counter's recount
                        }
                    }
                    System.err.printf("%s: %,d targets checked, %,d corrected%n", k[1], targets, corrected);
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                System.out.printf(Locale.ROOT, "%s: %,d targets corrected of %,d checked in %.1f s (%,.0f targets/s)%n", k[1],
                        corrected, targets, seconds, targets / seconds);
            }
            Drain.Drained d = Drain.drain(c, batchSize);
            Drain.report(d);
            return d.waiting() ? 1 : 0;
        }
    }
}
