package io.countercache.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.Callable;

/** Rolls up until a round finds nothing to do, reporting progress, rate and time left on standard error. */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = "Run the rollup until the queue is empty.")
final class Drain implements Callable<Integer> {

    @Mixin
    Database database;

    @Option(names = "--batch-size", defaultValue = "10000", description = "Deltas per round (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Override
    public Integer call() throws Exception {
        try (Connection c = database.connect()) {
            long total = drain(c, batchSize);
            System.out.println("drained " + total + " deltas");
        }
        return 0;
    }

    /** Rounds until one consumes nothing; returns the deltas consumed. Progress goes to standard error. */
    static long drain(Connection c, int batchSize) throws Exception {
        long started = System.nanoTime(), total = 0, reported = started;
        try (PreparedStatement round = c.prepareStatement("SELECT countercache.rollup(?)");
             PreparedStatement depth = c.prepareStatement("SELECT depth FROM countercache.queue_state()")) {
            round.setInt(1, batchSize);
            for (long n = 1; n > 0; ) {
                try (ResultSet rs = round.executeQuery()) {
                    rs.next();
                    n = rs.getLong(1);
                }
                total += n;
                if (System.nanoTime() - reported > 1_000_000_000L) {
                    reported = System.nanoTime();
                    long left;
                    try (ResultSet rs = depth.executeQuery()) {
                        rs.next();
                        left = rs.getLong(1);
                    }
                    double rate = total / ((reported - started) / 1e9);
                    System.err.printf("%,d applied, %,.0f/s, %,d queued, about %.0f s left%n", total, rate, left,
                            rate > 0 ? left / rate : 0);
                }
            }
        }
        return total;
    }
}
