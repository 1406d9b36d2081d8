package io.countercache;

import io.countercache.internal.Round;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * Folds the delta queue into the counter columns by calling {@code countercache.rollup_report(batchSize)} on a
 * thread of its own. While rounds consume full batches it goes straight on; when the queue runs dry it returns its
 * connection and sleeps for the poll interval; when the database fails it logs once per failure streak and retries
 * with a delay that doubles up to the maximum backoff.
 *
 * <p>Any number of workers may run against one database, in one JVM or many, and never apply a delta twice. A round
 * without lanes that no other round overlaps claims alone, deleting what it claims without locking each row first;
 * rounds that overlap claim with {@code FOR UPDATE SKIP LOCKED}, and wait only for a round claiming alone to commit.
 * Each round is one transaction: if it fails, or its connection dies, it rolls back and its deltas are back in the
 * queue. Before each round, in a transaction of its own, {@code countercache.take_generation()} folds the generation
 * of the queue that writers have left into the queue and truncates it, so that rounds claim sums, not deltas.
 * Workers that share a queue apply disjoint targets, instead of handing back rows another round holds, when each is
 * given {@link Builder#lanes} equal to their number (a gain in speed is not shown yet: see the README).
 *
 * <pre>{@code
 * RollupWorker worker = RollupWorker.builder(dataSource).batchSize(10_000).build().start();
 * ...
 * worker.close();   // lets the round in progress commit, then stops
 * }</pre>
 */
public final class RollupWorker implements AutoCloseable {

    /** How long a worker goes on with full rounds before it gives the recounts a batch (see run()). */
    private static final long MAINTENANCE_EVERY_NANOS = 1_000_000_000L;
    /** The longest shutdown timeout close() counts (a year): a longer one, Long.MAX_VALUE ms say, waits as long. */
    private static final long MAX_WAIT_MILLIS = 365L * 24 * 3600 * 1000;
    /** How long close() waits after a cancel, and after an abort, for the thread to end, whatever the timeout. */
    private static final long GRACE_NANOS = 1_000_000_000L;

    private static final Logger log = LoggerFactory.getLogger(RollupWorker.class);

    /** The default of {@link Builder#batchSize}. */
    public static final int DEFAULT_BATCH_SIZE = 10_000;
    /** The most {@link Builder#lanes} a worker may take: more lanes than workers buy nothing. */
    public static final int MAX_LANES = 64;
    /** The default of {@link Builder#pollInterval}, in milliseconds. */
    public static final int DEFAULT_POLL_INTERVAL_MILLIS = 200;
    /** The default of {@link Builder#maxBackoff}, in milliseconds. */
    public static final int DEFAULT_MAX_BACKOFF_MILLIS = 30_000;
    /**
     * How long a read of the queue's state ({@link #metrics()}, the starter's health indicator) may take, in seconds:
     * it counts the queue, and waits for a take or a migration that locks it; a scrape or a probe gets an error
     * instead of hanging behind it.
     */
    public static final int QUEUE_READ_SECONDS = 10;
    /** The default of {@link Builder#shutdownTimeout}, in milliseconds. */
    public static final int DEFAULT_SHUTDOWN_TIMEOUT_MILLIS = 30_000;

    private final ConnectionSource connections;
    private final int batchSize;
    private final int lanes;
    private final Duration pollInterval;
    private final Duration maxBackoff;
    private final Duration shutdownTimeout;
    private final String name;
    private final RollupListener listener;
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final long builtAt = System.nanoTime();
    private final Object wake = new Object();
    private volatile boolean running;
    private volatile boolean stopRequested;                // running ends by close(), else by an interrupt
    private final Round round;                              // the worker thread's rounds, cancelled by close()
    private volatile Connection inFlightConnection;        // the worker thread's connection, for abort
    private volatile String roundError;                    // the latest round failure, until a round succeeds
    private volatile String upkeepError;                   // the latest maintenance failure, until it succeeds
    private volatile Thread thread;

    private RollupWorker(Builder b) {
        this.connections = b.connections;
        this.batchSize = b.batchSize;
        this.lanes = b.lanes;
        this.pollInterval = b.pollInterval;
        this.maxBackoff = b.maxBackoff;
        this.shutdownTimeout = b.shutdownTimeout;
        this.name = b.name;
        this.listener = b.listener;
        this.round = new Round(name, batchSize, lanes, listener);
    }

    /** Starts configuring a worker that takes its connections from {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new Builder(dataSource::getConnection);
    }

    /** Starts configuring a worker that takes its connections from a provider of the application's own. */
    public static Builder builder(ConnectionSource connections) {
        return new Builder(Objects.requireNonNull(connections, "connections"));
    }

    /**
     * Runs one rollup round on {@code connection} (which must be in auto-commit mode or be committed by the caller)
     * and returns how many deltas it consumed.
     */
    public static long rollupOnce(Connection connection, int maxDeltas) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT countercache.rollup(?)")) {
            ps.setInt(1, maxDeltas);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The name given to the builder: the thread's name and the prefix of every log line. */
    public String name() {
        return name;
    }

    /** Starts the worker thread. */
    public synchronized RollupWorker start() {
        if (thread != null) {
            throw new IllegalStateException(name + " is already started");
        }
        running = true;
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
        log.info("{} started (batch size {}, lanes {}, poll interval {} ms)", name, batchSize, lanes, pollInterval.toMillis());
        return this;
    }

    /**
     * Waits until the worker thread ends: stopped by {@link #close()} (from a shutdown hook, say), interrupted, or
     * killed by an {@link Error}. The thread is a daemon, so that a worker left running never keeps a JVM from
     * exiting; a process that does nothing but run workers waits here.
     */
    public void awaitTermination() throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t == null) {
            throw new IllegalStateException(name + " is not started");
        }
        t.join();
    }

    /** Whether the worker thread is alive: started, and neither stopped by close() nor killed by an {@link Error}. */
    public synchronized boolean isRunning() {
        return thread != null && thread.isAlive();
    }

    /** Rolls up on the calling thread until a round consumes nothing; returns the deltas consumed. */
    public long drain() {
        try {
            return rounds(n -> n > 0);
        } catch (SQLException e) {
            throw new CounterCacheException(name + ": rollup failed (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** Deltas consumed by this worker so far (by its thread and by {@link #drain()}). */
    public long appliedDeltas() {
        return applied.get();
    }

    /** Rounds of this worker that failed and were retried. */
    public long failures() {
        return failures.get();
    }

    /** Reads the queue's depth and oldest age and the dead-letter count, and adds this worker's own figures. */
    public RollupMetrics metrics() {
        try {
            Connection c = connections.open();
            try {
                Round.QueueState q = Round.queue(c);
                double seconds = Math.max(1e-9, (System.nanoTime() - builtAt) / 1e9);
                return new RollupMetrics(q.depth(), Duration.ofMillis(Math.max(0, Math.round(q.oldestSeconds() * 1000))),
                        q.deadLetters(), applied.get(), applied.get() / seconds, failures.get(), lastError(),
                        q.recounts(), q.recountTargets());
            } finally {
                connections.release(c);
            }
        } catch (SQLException e) {
            throw new CounterCacheException(name + ": cannot read queue metrics (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** Why the latest round failed, else why the latest recount or prune failed; null once each has succeeded. */
    private String lastError() {
        String e = roundError;
        return e != null ? e : upkeepError;
    }

    /**
     * Stops the worker. The round in progress may commit within the shutdown timeout; after that its statement (or a
     * recount's batch) is cancelled, which rolls it back and leaves its deltas in the queue for the next worker.
     * Either way nothing is lost. If the thread has not ended a second after the cancel (stuck committing, say), its
     * connection is aborted and the thread interrupted (which ends a wait for a connection from a pool).
     */
    @Override
    public void close() {
        closeAll(List.of(this));
    }

    /**
     * Closes several workers: all stop taking rounds at once, and each is given its shutdown timeout from that moment,
     * so that closing several takes no longer than closing the slowest; then each is cancelled and aborted as
     * {@link #close()} says.
     */
    public static void closeAll(Collection<RollupWorker> workers) {
        Map<RollupWorker, Thread> stopping = new LinkedHashMap<>();
        for (RollupWorker w : workers) {
            Thread t = w.signalStop();
            if (t != null) {
                stopping.put(w, t);
            }
        }
        long stopped = System.nanoTime();
        // each is cancelled at its own deadline: the shortest timeouts first
        List<RollupWorker> byTimeout = new ArrayList<>(stopping.keySet());
        byTimeout.sort(Comparator.comparing(w -> w.shutdownTimeout));
        for (RollupWorker w : byTimeout) {
            Thread t = stopping.get(w);
            w.awaitRound(t, stopped + w.waitMillis() * 1_000_000);
            if (t.isAlive()) {
                log.warn("{}: the round in progress did not finish within {} ms; cancelling it, its deltas stay queued",
                        w.name, w.waitMillis());
                w.round.cancel();
            }
        }
        long cancelled = System.nanoTime();
        stopping.forEach((w, t) -> joinUntil(t, cancelled + GRACE_NANOS));
        stopping.forEach((w, t) -> {
            if (t.isAlive()) {
                w.abort(t);
            }
        });
        long aborted = System.nanoTime();
        stopping.forEach((w, t) -> {
            joinUntil(t, aborted + GRACE_NANOS);
            if (t.isAlive()) {
                log.error("{}: the worker thread did not stop; its open round, if any, rolls back when its connection"
                        + " closes", w.name);
            } else {
                log.info("{} stopped after applying {} deltas", w.name, w.applied.get());
            }
        });
    }

    /** The shutdown timeout in milliseconds, at most {@link #MAX_WAIT_MILLIS}. */
    private long waitMillis() {
        return shutdownTimeout.compareTo(Duration.ofMillis(MAX_WAIT_MILLIS)) > 0 ? MAX_WAIT_MILLIS
                : shutdownTimeout.toMillis();
    }

    /** Stops further rounds and wakes a sleeping worker; returns its thread, or null if it was not running. */
    private Thread signalStop() {
        synchronized (this) {
            if (thread == null || !running) {
                return null;
            }
            stopRequested = true;
            running = false;
        }
        synchronized (wake) {
            wake.notifyAll();
        }
        return thread;
    }

    /**
     * Waits until the deadline for the round in progress to end and the thread with it. A thread that holds no
     * connection has no round to finish: it is waiting for a connection (from a pool whose database is gone, say, at
     * a JVM's exit), so it is interrupted at once, which ends the wait, rather than after the timeout.
     */
    private void awaitRound(Thread t, long deadline) {
        while (t.isAlive() && deadline - System.nanoTime() > 0 && !Thread.currentThread().isInterrupted()) {
            if (inFlightConnection == null) {
                t.interrupt();   // a worker that got its connection a moment ago finishes its round: JDBC ignores it
            }
            joinUntil(t, Math.min(deadline, System.nanoTime() + 50_000_000));
        }
    }

    /** Waits for the thread until the deadline (System.nanoTime()), not at all once it has passed or if interrupted. */
    private static void joinUntil(Thread t, long deadline) {
        long millis = (deadline - System.nanoTime()) / 1_000_000;
        if (millis <= 0 || Thread.currentThread().isInterrupted()) {
            return;
        }
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Aborts the connection of a thread that a cancel did not end, and interrupts it (a wait for a connection). */
    private void abort(Thread t) {
        Connection c = inFlightConnection;
        log.warn("{}: still busy after the cancel; aborting its connection", name);
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException e) {
                log.warn("{}: could not abort its connection: {}", name, e.toString());
            }
        }
        t.interrupt();
    }

    private void run() {
        long backoff = pollInterval.toMillis();
        long streakStarted = 0;
        long streakFailures = 0;
        Maintenance upkeep = new Maintenance();
        warnAboutSetup();
        try {
            while (running) {
                try {
                    // a full batch: there is probably more; but at least once a second the recounts get their batch,
                    // so that a queue that never runs dry cannot starve them
                    long[] last = {0};
                    long until = System.nanoTime() + MAINTENANCE_EVERY_NANOS;
                    rounds(n -> {
                        last[0] = n;
                        return running && n >= batchSize && System.nanoTime() < until;
                    });
                    if (streakFailures > 0) {
                        log.info("{}: rollup resumed after {} failed attempts over {} ms", name, streakFailures,
                                (System.nanoTime() - streakStarted) / 1_000_000);
                        streakFailures = 0;
                    }
                    roundError = null;
                    backoff = pollInterval.toMillis();
                    if (!upkeep.run() && last[0] < batchSize) {
                        pause(pollInterval.toMillis());
                    }
                } catch (SQLException | RuntimeException e) {
                    failures.incrementAndGet();
                    roundError = describe(e);
                    if (streakFailures++ == 0 && running) {
                        streakStarted = System.nanoTime();
                        log.warn("{}: rollup failed, retrying with backoff up to {} ms (logged once until it recovers): {}",
                                name, maxBackoff.toMillis(), roundError);
                    }
                    pause(backoff);
                    backoff = Math.min(backoff * 2, maxBackoff.toMillis());
                }
            }
        } catch (Error e) {
            log.error("{} died; counters stop being updated until a worker runs again", name, e);
            throw e;
        }
        if (!stopRequested) {
            log.warn("{} stopped: its thread was interrupted; counters stop being updated until a worker runs again",
                    name);
        }
    }

    /**
     * Logs each counted table whose row-level security may hide rows from this worker's role (a recount would leave
     * them out, and a round could not update them), and each trigger of a table it writes whose code another role may
     * change (it would run as this worker). A check that fails (a schema older than the check) logs nothing: the
     * rounds report what stops them.
     */
    private void warnAboutSetup() {
        try {
            Connection c = connections.open();
            inFlightConnection = c;   // so that close() can abort a check that waits (on DDL of the catalog)
            try {
                Round.setupProblems(c).forEach(p -> log.warn("{}: {}", name, p));
            } finally {
                inFlightConnection = null;
                connections.release(c);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("{}: could not check row-level security and triggers: {}", name, e.toString());
        }
    }

    /**
     * Between rounds, once the queue has caught up: old limit counts go, and one batch of the oldest requested
     * recount (a new or changed counter's backfill that the changelog did not finish, or a repair) runs. Its failures
     * are its own: the rounds go on meanwhile, so they neither reset its backoff nor count as failed rounds, and a
     * failure that lasts is logged once and retried with a backoff of its own.
     */
    private final class Maintenance {
        private long failed;
        private long backoff = pollInterval.toMillis();
        private long due = System.nanoTime();   // nanoTime's origin is arbitrary, and may be negative

        /** Runs it when it is due; returns whether a recount advanced. */
        boolean run() {
            if (!running || System.nanoTime() - due < 0) {
                return false;
            }
            try {
                Connection c = connections.open();
                inFlightConnection = c;   // so that close() can abort a batch that outlasts its timeout
                try {
                    boolean advanced = round.maintenance(c);
                    upkeepError = null;
                    if (failed > 0) {
                        log.info("{}: recounts and pruning resumed after {} failed attempts", name, failed);
                        failed = 0;
                        backoff = pollInterval.toMillis();
                    }
                    return advanced;
                } finally {
                    inFlightConnection = null;
                    connections.release(c);
                }
            } catch (SQLException | RuntimeException e) {
                upkeepError = describe(e);
                if (failed++ == 0 && running) {
                    log.warn("{}: recounts and pruning failed, retrying with backoff up to {} ms while rounds go on"
                            + " (logged once until it recovers): {}", name, maxBackoff.toMillis(), upkeepError);
                }
                due = System.nanoTime() + backoff * 1_000_000;
                backoff = Math.min(backoff * 2, maxBackoff.toMillis());
                return false;
            }
        }
    }

    /**
     * Runs rounds on one connection for as long as {@code goOn} says of the last round's count; returns the total.
     * {@link #drain()} runs on the caller's thread with rounds of its own, so that close() never cancels them.
     */
    private long rounds(LongPredicate goOn) throws SQLException {
        boolean own = Thread.currentThread() == thread;
        Round rounds = own ? round : new Round(name, batchSize, lanes, listener);
        Connection c = connections.open();
        if (own) {
            inFlightConnection = c;
        }
        try {
            rounds.prepare(c);
            long total = 0;
            while (true) {
                // the take commits on its own: what it folded counts even when the round after it fails
                long n = rounds.take(c);
                applied.addAndGet(n);
                long applies = rounds.run(c);
                applied.addAndGet(applies);
                n += applies;
                total += n;
                if (!goOn.test(n)) {
                    return total;
                }
            }
        } finally {
            if (own) {
                inFlightConnection = null;
            }
            connections.release(c);
        }
    }

    /** The SQLState and the first line of the message: the context PostgreSQL appends is noise in a log line. */
    private static String describe(Exception e) {
        String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        return e instanceof SQLException s ? "SQLState " + s.getSQLState() + ": " + message
                : e.getClass().getSimpleName() + ": " + message;
    }

    private void pause(long millis) {
        synchronized (wake) {
            if (!running) {
                return;
            }
            try {
                wake.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }

    /** Configuration of a {@link RollupWorker}; validated once by {@link #build()}. */
    public static final class Builder {
        private final ConnectionSource connections;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private int lanes = 1;
        private Duration pollInterval = Duration.ofMillis(DEFAULT_POLL_INTERVAL_MILLIS);
        private Duration maxBackoff = Duration.ofMillis(DEFAULT_MAX_BACKOFF_MILLIS);
        private Duration shutdownTimeout = Duration.ofMillis(DEFAULT_SHUTDOWN_TIMEOUT_MILLIS);
        private String name = "countercache-rollup";
        private RollupListener listener;

        private Builder(ConnectionSource connections) {
            this.connections = connections;
        }

        /** Deltas claimed per round, each round one transaction. Default: {@value #DEFAULT_BATCH_SIZE}. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /**
         * The number of lanes the queue is split into by target: each round claims the deltas of one lane that no other
         * worker with the same number of lanes holds, so that workers apply disjoint targets instead of handing back
         * each other's rows. Give every worker of a database the number of workers, at most {@value #MAX_LANES}.
         * Default: 1, every delta.
         */
        public Builder lanes(int lanes) {
            this.lanes = lanes;
            return this;
        }

        /** Sleep between rounds once the queue is empty. Default: {@value #DEFAULT_POLL_INTERVAL_MILLIS} ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
            return this;
        }

        /** The longest wait between retries while the database fails. Default: {@value #DEFAULT_MAX_BACKOFF_MILLIS} ms. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
            return this;
        }

        /**
         * How long {@link #close()} lets the round in progress run before cancelling it; a second after the cancel it
         * aborts the connection. Zero cancels at once. Default: {@value #DEFAULT_SHUTDOWN_TIMEOUT_MILLIS} ms.
         */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
            return this;
        }

        /** The thread name, also used in log lines. Default: {@code countercache-rollup}. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Told which targets each round changed, before and after it commits, for caches. Default: none. */
        public Builder listener(RollupListener listener) {
            this.listener = listener;
            return this;
        }

        public RollupWorker build() {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
            }
            if (lanes < 1 || lanes > MAX_LANES) {
                throw new IllegalArgumentException("lanes must be from 1 to " + MAX_LANES + " (the number of workers), got " + lanes);
            }
            if (pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("pollInterval must be positive, got " + pollInterval);
            }
            if (maxBackoff.compareTo(pollInterval) < 0) {
                throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must be at least pollInterval (" + pollInterval + ")");
            }
            if (shutdownTimeout.isNegative()) {
                throw new IllegalArgumentException("shutdownTimeout must not be negative, got " + shutdownTimeout);
            }
            return new RollupWorker(this);
        }
    }
}
