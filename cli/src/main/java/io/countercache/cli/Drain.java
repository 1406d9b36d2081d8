package io.countercache.cli;

import io.countercache.RollupWorker;
import io.countercache.internal.Round;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Locale;
import java.util.concurrent.Callable;

/** Rolls up what is queued, reporting progress, rate and time left on standard error. */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = "Run the rollup until everything queued when it started is applied (the queue is empty, without writers).")
final class Drain implements Callable<Integer> {

    @Mixin
    Database database;

    @Option(names = "--batch-size", defaultValue = "" + RollupWorker.DEFAULT_BATCH_SIZE, description = "Deltas per round (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Override
    public Integer call() throws Exception {
        try (Connection c = database.connect()) {
            Drained d = drain(c, batchSize);
            report(d);
            return d.waiting() || d.deadLettered() > 0 ? 1 : 0;
        }
    }

    /**
     * What a drain applied, whether deltas queued before it began still wait (see {@link #drain}), and how many sums
     * went to the dead letters meanwhile (their targets refused them).
     */
    record Drained(long deltas, double seconds, boolean waiting, long deadLettered) {
    }

    /** Tries, a second apart, of a round while deltas queued before the drain began wait, before it gives up. */
    static final int PATIENCE = 5;

    /** The depth queue_state() counts exactly; above, it is estimated, within a few percent either way. */
    static final long EXACT_DEPTH = 100_000;

    static void report(Drained d) {
        System.out.printf(Locale.ROOT, "drained %,d deltas in %.1f s (%,.0f deltas/s)%n", d.deltas(), d.seconds(),
                d.seconds() > 0 ? d.deltas() / d.seconds() : 0);
        if (d.deadLettered() > 0) {
            System.out.printf(Locale.ROOT, "%,d sums went to the dead letters while it ran: their target rows refused"
                    + " them (status lists them per counter); fix the cause, then repair those counters%n",
                    d.deadLettered());
        }
        if (d.waiting()) {
            System.out.printf(Locale.ROOT, "deltas queued before the drain began still wait after %d more tries a"
                    + " second apart: other transactions hold their target rows, or another round holds the queue;"
                    + " run drain again once they are done (status lists what waits)%n", PATIENCE);
        }
    }

    /**
     * Rounds until every delta queued when the first round ended is applied: with writers going on the queue is never
     * empty for long, and chasing them would never end (the workers keep up with them). While some of those deltas
     * wait (their target rows are held, or another round holds the queue for longer than a round waits for it: a
     * round then applies nothing, or only what was queued later, once it has applied as many as were queued), the
     * round is tried again a second later, {@link #PATIENCE} times more at most; then the drain stops and says so.
     * First the slots' amounts go to the queue, every slot that holds one (a round moves one batch of them). Before
     * each round, as a worker does, take_generation folds the generation writers have left into the queue. Progress
     * goes to standard error.
     */
    static Drained drain(Connection c, int batchSize) throws Exception {
        long started = System.nanoTime(), total = 0, reported = started;
        boolean waiting = false;
        long deadBefore = queueState(c, "dead_letters");
        flushSlots(c, batchSize);
        try (PreparedStatement take = c.prepareStatement(Round.TAKE);
             PreparedStatement round = c.prepareStatement("SELECT countercache.rollup(?)");
             PreparedStatement bounds = c.prepareStatement("SELECT coalesce(b.first_id, 0), coalesce(b.last_id, 0)"
                     + " FROM countercache.queue_bounds() b");
             PreparedStatement older = c.prepareStatement("SELECT coalesce(b.first_id OPERATOR(pg_catalog.<=) ?, false)"
                     + " FROM countercache.queue_bounds() b");
             PreparedStatement depth = c.prepareStatement("SELECT depth FROM countercache.queue_state()")) {
            round.setInt(1, batchSize);
            Long bound = null;
            long owed = 0, since = 0;   // what was queued when the bound was read, and what rounds applied since
            for (int tries = 0; ; ) {
                long n;
                try (ResultSet rs = take.executeQuery()) {   // in auto-commit: a transaction of its own
                    rs.next();
                    n = rs.getLong(1);
                }
                try (ResultSet rs = round.executeQuery()) {
                    rs.next();
                    n += rs.getLong(1);
                }
                total += n;
                if (bound == null) {
                    long first;
                    try (ResultSet rs = bounds.executeQuery()) {
                        rs.next();
                        first = rs.getLong(1);
                        bound = rs.getLong(2);     // 0 when the queue is empty
                    }
                    // an estimated depth may fall short of what is owed, and the drain would give up while the rounds
                    // still apply it: then the ids up to the bound, which are at least as many
                    owed = queued(depth);
                    owed = owed <= EXACT_DEPTH ? owed : bound - first + 1;
                } else {
                    since += n;
                }
                if (System.nanoTime() - reported > 1_000_000_000L) {
                    reported = System.nanoTime();
                    long queued = queued(depth);
                    double rate = total / ((reported - started) / 1e9);
                    progress(total / (double) Math.max(1, total + queued), String.format(Locale.ROOT,
                            "%,d applied, %,.0f/s, %,d queued, about %.0f s left", total, rate, queued,
                            rate > 0 ? queued / rate : 0));
                }
                if (!left(older, bound)) {
                    break;
                }
                // The claim takes the oldest first: once the rounds have applied as many deltas as were queued, or
                // when one applies nothing, what is left of them waits
                if (n == 0 || since >= owed) {
                    if (++tries > PATIENCE) {
                        waiting = true;
                        break;
                    }
                    Thread.sleep(1000);
                } else {
                    tries = 0;
                }
            }
        }
        if (reported != started && System.console() != null) {
            System.err.println();
        }
        return new Drained(total, (System.nanoTime() - started) / 1e9, waiting,
                Math.max(0, queueState(c, "dead_letters") - deadBefore));
    }

    /**
     * Moves what the slots hold to the queue, a batch a transaction, until a batch comes back short: at most as many
     * batches as the queue's depth (which counts the slots that hold an amount) fills, twice as many when the depth is
     * estimated, so writers cannot keep it going.
     */
    private static void flushSlots(Connection c, int batchSize) throws Exception {
        long depth = queueState(c, "depth");
        depth = depth <= EXACT_DEPTH ? depth : 2 * depth;
        try (PreparedStatement flush = c.prepareStatement("SELECT countercache.flush_slots(?)")) {
            flush.setInt(1, batchSize);
            for (long batches = depth / batchSize + 1; batches > 0; batches--) {
                try (ResultSet rs = flush.executeQuery()) {   // in auto-commit: a transaction of its own
                    rs.next();
                    if (rs.getLong(1) < batchSize) {
                        return;
                    }
                }
            }
        }
    }

    /** A column of {@code queue_state()} now: the depth, or the sums the dead letters hold. */
    private static long queueState(Connection c, String column) throws Exception {
        try (ResultSet rs = c.createStatement().executeQuery("SELECT " + column + " FROM countercache.queue_state()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The deltas queued now. */
    private static long queued(PreparedStatement depth) throws Exception {
        try (ResultSet rs = depth.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A progress bar on standard error: redrawn in place on a terminal, a line each time otherwise (logs, CI). */
    static void progress(double done, String text) {
        int filled = (int) Math.round(Math.min(1, done) * 30);
        String line = String.format(Locale.ROOT, "[%s%s] %3.0f%%  %s", "#".repeat(filled),
                " ".repeat(30 - filled), done * 100, text);
        System.err.print(System.console() != null ? "\r" + line : line + System.lineSeparator());
    }

    /** Whether a delta with an id up to this one is still queued. */
    private static boolean left(PreparedStatement older, long bound) throws Exception {
        older.setLong(1, bound);
        try (ResultSet rs = older.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }
}
