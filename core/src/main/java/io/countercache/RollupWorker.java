package io.countercache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Folds the delta queue into the counter columns by calling {@code countercache.rollup(batchSize)} on a thread of its
 * own. While a round consumes a full batch it goes straight on; when the queue runs dry it returns its connection and
 * sleeps for the poll interval; when the database fails it logs once and retries with a growing delay.
 *
 * <p>Any number of workers may run against one database, in one JVM or many: the rollup claims deltas with
 * {@code FOR UPDATE SKIP LOCKED}, so workers never apply a delta twice and never wait for one another.
 *
 * <pre>{@code
 * RollupWorker worker = RollupWorker.builder(dataSource).batchSize(10_000).build();
 * worker.start();
 * ...
 * worker.close();   // finishes the batch in progress, then stops
 * }</pre>
 */
public final class RollupWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RollupWorker.class);

    private final DataSource dataSource;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration maxBackoff;
    private final String name;
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final long builtAt = System.nanoTime();
    private volatile boolean running;
    private Thread thread;

    private RollupWorker(Builder b) {
        this.dataSource = b.dataSource;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.maxBackoff = b.maxBackoff;
        this.name = b.name;
    }

    /** Starts configuring a worker that takes its connections from {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
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

    /** Starts the worker thread. */
    public synchronized RollupWorker start() {
        if (thread != null) {
            throw new IllegalStateException(name + " is already started");
        }
        running = true;
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
        log.info("{} started (batch size {}, poll interval {} ms)", name, batchSize, pollInterval.toMillis());
        return this;
    }

    /** Rolls up on the calling thread until a round consumes nothing; returns the deltas consumed. */
    public long drain() {
        long total = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            for (long n; (n = rollupOnce(c, batchSize)) > 0; ) {
                total += n;
                applied.addAndGet(n);
            }
            return total;
        } catch (SQLException e) {
            throw new CounterCacheException(name + ": rollup failed (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** Deltas consumed by this worker so far (by its thread and by {@link #drain()}). */
    public long appliedDeltas() {
        return applied.get();
    }

    /** Reads the queue's depth and oldest age and the dead-letter count, and adds this worker's own figures. */
    public RollupMetrics metrics() {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*), coalesce(extract(epoch FROM now() - min(enqueued_at)), 0),"
                     + " (SELECT count(*) FROM countercache.dead_letter) FROM countercache.delta");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            double seconds = Math.max(1e-9, (System.nanoTime() - builtAt) / 1e9);
            return new RollupMetrics(rs.getLong(1), Duration.ofMillis(Math.max(0, Math.round(rs.getDouble(2) * 1000))),
                    rs.getLong(3), applied.get(), applied.get() / seconds, failures.get());
        } catch (SQLException e) {
            throw new CounterCacheException(name + ": cannot read queue metrics (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** Lets the batch in progress commit, then stops the thread; waits at most 30 seconds. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            t = thread;
            thread = null;
            running = false;
        }
        if (t == null) {
            return;
        }
        t.interrupt();
        try {
            t.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("{} stopped after applying {} deltas", name, applied.get());
    }

    private void run() {
        long backoff = pollInterval.toMillis();
        boolean failing = false;
        while (running) {
            try {
                roundsUntilDry();
                if (failing) {
                    log.info("{}: database reachable again, rollup resumed", name);
                    failing = false;
                }
                backoff = pollInterval.toMillis();
                sleep(pollInterval.toMillis());
            } catch (SQLException | RuntimeException e) {
                failures.incrementAndGet();
                if (!failing) {
                    log.warn("{}: rollup failed, retrying with backoff up to {} ms: {}", name, maxBackoff.toMillis(), e.toString());
                    failing = true;
                }
                sleep(backoff);
                backoff = Math.min(backoff * 2, maxBackoff.toMillis());
            }
        }
    }

    /** Holds one connection while full batches keep coming; a short round means the queue is (nearly) empty. */
    private void roundsUntilDry() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            long n;
            do {
                n = rollupOnce(c, batchSize);
                applied.addAndGet(n);
            } while (running && n >= batchSize);
        }
    }

    private void sleep(long millis) {
        if (!running) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            // close() interrupts to cut the sleep short; running is false by then and the loop ends.
            if (running) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Configuration of a {@link RollupWorker}; validated once by {@link #build()}. */
    public static final class Builder {
        private final DataSource dataSource;
        private int batchSize = 10_000;
        private Duration pollInterval = Duration.ofMillis(200);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private String name = "countercache-rollup";

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** Deltas claimed per round. Default: 10000. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** Sleep between rounds once the queue is empty. Default: 200 ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
            return this;
        }

        /** The longest wait between retries while the database fails. Default: 30 s. */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
            return this;
        }

        /** The thread name, also used in log lines. Default: {@code countercache-rollup}. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        public RollupWorker build() {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
            }
            if (pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("pollInterval must be positive, got " + pollInterval);
            }
            if (maxBackoff.compareTo(pollInterval) < 0) {
                throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must be at least pollInterval (" + pollInterval + ")");
            }
            return new RollupWorker(this);
        }
    }
}
