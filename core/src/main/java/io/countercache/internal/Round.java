package io.countercache.internal;

import io.countercache.RollupListener;
import io.countercache.RollupWorker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One rollup round of a worker: one transaction of {@code countercache.rollup_report}, and the listener protocol
 * around its commit. With a listener the round commits explicitly, and the listener hears which targets changed after
 * the rollup and before the commit (if it throws, the round rolls back), and again once the transaction has ended.
 * Without one the connection is in auto-commit. Before each round, in a transaction of its own, {@link #take} folds
 * the generation of the queue that writers have left back into the queue and truncates it (a round that held it
 * would keep readers of the queue waiting while it applies). The statement in progress can be cancelled from another
 * thread.
 */
public final class Round {

    private static final Logger log = LoggerFactory.getLogger(Round.class);
    private static final String ROLLUP = "SELECT r.counter_id, r.consumed, r.target_ids, r.target_uuids"
            + " FROM countercache.rollup_report(?, ?) r";
    private static final String ROLLUP_IN_LANES = "SELECT r.counter_id, r.consumed, r.target_ids, r.target_uuids"
            + " FROM countercache.rollup_report(?, ?, ?) r";
    public static final String TAKE = "SELECT coalesce(sum(t.consumed), 0) FROM countercache.take_generation() t";
    private static final String RECOUNT_STEP = "SELECT s.targets FROM countercache.recount_next(?) s";
    private static final String PRUNE = "SELECT countercache.prune_limit_usage(?), countercache.prune_slots(?),"
            + " countercache.prune_buckets(?)";
    private static final long PRUNE_EVERY_NANOS = 60_000_000_000L;
    private static final String QUEUE = "SELECT q.depth, q.oldest_seconds, q.dead_letters, r.running, r.targets"
            + " FROM countercache.queue_state() q, countercache.recount_progress() r";

    /** The queue as {@code countercache.queue_state()} reports it. */
    public record QueueState(long depth, double oldestSeconds, long deadLetters, long recounts, long recountTargets) {
    }

    private final String name;
    private final int batchSize;
    private final int lanes;
    private final RollupListener listener;
    private volatile PreparedStatement inFlight;
    private long prunedAt = System.nanoTime() - PRUNE_EVERY_NANOS;
    private String lastWarning;
    private long lastWarningAt;

    public Round(String name, int batchSize, RollupListener listener) {
        this(name, batchSize, 1, listener);
    }

    /** A round that claims the deltas of one of {@code lanes} lanes (see {@code countercache.rollup_report}). */
    public Round(String name, int batchSize, int lanes, RollupListener listener) {
        this.name = name;
        this.batchSize = batchSize;
        this.lanes = lanes;
        this.listener = listener;
    }

    /** Puts a connection in the commit mode rounds need: auto-commit unless a listener must hear before commit. */
    public void prepare(Connection c) throws SQLException {
        c.setAutoCommit(listener == null);
    }

    /** Runs one round on a prepared connection and returns the deltas it consumed. */
    public long run(Connection c) throws SQLException {
        return listener == null ? execute(c, null) : listened(c);
    }

    /**
     * Runs take_generation on a prepared connection and commits it, before a round; returns the deltas its fold
     * removed from the queue (the round after it applies the sums, each counted as one).
     */
    public long take(Connection c) throws SQLException {
        long folded;
        try (PreparedStatement ps = c.prepareStatement(TAKE)) {
            inFlight = ps;
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                folded = rs.getLong(1);
            }
        } catch (SQLException e) {
            rollbackQuietly(c);   // outside a transaction a no-op; on a broken connection it fails, hiding nothing
            if (!"42883".equals(e.getSQLState())) {
                throw e;
            }
            return 0;   // a schema older than version 15, until its upgrade: rounds claim by rows
        } finally {
            inFlight = null;
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
        return folded;
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            // the connection is gone, and with it the transaction
        }
    }

    /** A round whose listener hears its targets before the commit and again once it has ended. */
    private long listened(Connection c) throws SQLException {
        Map<Integer, List<Object>> touched = new HashMap<>();
        RollupListener.AfterRound after = null;
        boolean committed = false;
        try {
            long consumed = execute(c, touched);
            if (!touched.isEmpty()) {
                after = listener.applied(touched);   // if it throws, the round rolls back and is retried
            }
            c.commit();
            committed = true;
            return consumed;
        } finally {
            if (!committed) {
                rollbackQuietly(c);
            }
            if (after != null) {
                try {
                    after.ended(committed);
                } catch (RuntimeException e) {
                    log.warn("{}: rollup listener failed after the round ended: {}", name, e.toString());
                }
            }
        }
    }

    /**
     * Cancels the statement in progress, if any: a round's, which rolls back and leaves its deltas queued, or a
     * recount's batch or a prune, which the next maintenance does again.
     */
    public void cancel() {
        PreparedStatement round = inFlight;
        if (round != null) {
            try {
                round.cancel();
            } catch (SQLException e) {
                log.warn("{}: could not cancel the round in progress: {}", name, e.toString());
            }
        }
    }

    /**
     * What a worker does once the queue has caught up, in auto-commit: once a minute, delete the counts of limit
     * periods past their retention and zeroed slots; then one batch of the oldest requested recount. Returns whether a recount
     * advanced (another session may hold that counter's recount, then nothing advances).
     */
    public boolean maintenance(Connection c) throws SQLException {
        c.setAutoCommit(true);
        if (System.nanoTime() - prunedAt >= PRUNE_EVERY_NANOS) {
            try (PreparedStatement ps = c.prepareStatement(PRUNE)) {
                ps.setInt(1, batchSize);
                ps.setInt(2, batchSize);
                ps.setInt(3, batchSize);
                inFlight = ps;   // cancel() ends it as it ends a round
                ps.execute();
            } finally {
                inFlight = null;
            }
            prunedAt = System.nanoTime();
        }
        try (PreparedStatement ps = c.prepareStatement(RECOUNT_STEP)) {
            ps.setInt(1, batchSize);
            inFlight = ps;
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        } finally {
            inFlight = null;
        }
    }

    /** Reads the queue's depth, the age of its first delta and the dead-letter count (queue_state()). */
    public static QueueState queue(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(QUEUE)) {
            ps.setQueryTimeout(RollupWorker.QUEUE_READ_SECONDS);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new QueueState(rs.getLong(1), rs.getDouble(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
            }
        }
    }

    /**
     * What in the database may make this connection's role count wrong or run others' code, each as one line naming
     * its counters and the fix (see docs/security.md): counted tables whose row-level security may hide rows from it,
     * triggers of the tables it writes whose code another role may change, and event triggers of the DDL guard not in
     * place, without which a migration may break a counter unseen.
     */
    public static List<String> setupProblems(Connection c) throws SQLException {
        List<String> problems = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT p.problem || '; fix: ' || p.fix FROM ("
                + " SELECT r.table_name, r.problem, r.fix FROM countercache.row_security_problems(current_user) r"
                + " UNION ALL SELECT t.table_name, t.problem, t.fix FROM countercache.trigger_rights_problems() t"
                + " UNION ALL SELECT NULL, g.problem, g.fix FROM countercache.guard_problems() g) p"
                + " ORDER BY p.table_name, p.problem");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                problems.add(rs.getString(1));
            }
        }
        return problems;
    }

    /** Logs what the rollup warned about (a table it may not update), each distinct message once a minute. */
    private void warn(SQLWarning w) {
        for (; w != null; w = w.getNextWarning()) {
            String message = w.getMessage();
            long now = System.nanoTime();
            if (!message.equals(lastWarning) || now - lastWarningAt > PRUNE_EVERY_NANOS) {
                log.warn("{}: {} (SQLState {})", name, message, w.getSQLState());
                lastWarning = message;
                lastWarningAt = now;
            }
        }
    }

    /** Runs {@code rollup_report}; collects the touched keys per counter when {@code touched} is given. */
    private long execute(Connection c, Map<Integer, List<Object>> touched) throws SQLException {
        long consumed = 0;
        try (PreparedStatement ps = c.prepareStatement(lanes == 1 ? ROLLUP : ROLLUP_IN_LANES)) {
            ps.setInt(1, batchSize);
            ps.setBoolean(2, touched != null);   // the keys are only worth their cost to a listener
            if (lanes > 1) {
                ps.setInt(3, lanes);
            }
            inFlight = ps;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    consumed += rs.getLong(2);
                    if (touched != null) {
                        Array keys = rs.getArray(3) != null ? rs.getArray(3) : rs.getArray(4);
                        if (keys != null) {   // a counter may come in several rows
                            touched.computeIfAbsent(rs.getInt(1), k -> new ArrayList<>())
                                    .addAll(Arrays.asList((Object[]) keys.getArray()));
                        }
                    }
                }
            } finally {
                inFlight = null;
            }
            warn(ps.getWarnings());
        }
        return consumed;
    }
}
