package io.countercache.benchmarks;

import io.countercache.internal.Round;
import org.HdrHistogram.Histogram;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/** Runs N clients, each on its own connection, for a time or a number of operations, and records their latency. */
final class Clients {

    /** One client operation; runs in whatever transaction mode the operation sets. */
    interface Op {
        void run(Connection c, SplittableRandom random) throws Exception;
    }

    record Result(long ops, double seconds, Histogram latencyMicros, long deadlocks) {
        double perSecond() {
            return ops / seconds;
        }

        double p50Millis() {
            return latencyMicros.getValueAtPercentile(50) / 1000.0;
        }

        double p99Millis() {
            return latencyMicros.getValueAtPercentile(99) / 1000.0;
        }

        /** This result and another of the same clients measured later, as one: their operations over their time. */
        Result plus(Result other) {
            Histogram both = latencyMicros.copy();
            both.add(other.latencyMicros);
            return new Result(ops + other.ops, seconds + other.seconds, both, deadlocks + other.deadlocks);
        }
    }

    private Clients() {
    }

    /**
     * Runs the operation unmeasured for {@code warmup} seconds, then measures until {@code seconds} more have passed or
     * {@code maxOps} operations were attempted, whichever comes first. {@code setup} (or null) runs once per connection.
     */
    static Result run(Server.Db db, int clients, double warmup, double seconds, long maxOps, String setup, Op op)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicLong attempts = new AtomicLong();
        AtomicLong deadlocks = new AtomicLong();
        long warmupEnd = System.nanoTime() + (long) (warmup * 1e9);
        long deadline = warmupEnd + (long) (seconds * 1e9);
        List<Future<Histogram>> futures = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            long seed = 7919L * (i + 1);
            futures.add(pool.submit(() -> {
                Histogram h = new Histogram(3_600_000_000L, 3);
                SplittableRandom random = new SplittableRandom(seed);
                try (Connection c = db.connect()) {
                    if (setup != null) {
                        try (var st = c.createStatement()) {
                            st.execute(setup);
                        }
                    }
                    while (System.nanoTime() < warmupEnd) {
                        try {
                            op.run(c, random);
                        } catch (SQLException e) {
                            if (!c.getAutoCommit()) {
                                c.rollback();
                            }
                        }
                    }
                    while (System.nanoTime() < deadline && attempts.incrementAndGet() <= maxOps) {
                        long t0 = System.nanoTime();
                        try {
                            op.run(c, random);
                            h.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
                        } catch (SQLException e) {
                            if (!c.getAutoCommit()) {
                                c.rollback();
                            }
                            if ("40P01".equals(e.getSQLState())) {
                                deadlocks.incrementAndGet();
                            } else {
                                throw e;
                            }
                        }
                    }
                }
                return h;
            }));
        }
        pool.shutdown();
        Histogram all = new Histogram(3_600_000_000L, 3);
        for (Future<Histogram> f : futures) {
            all.add(f.get());
        }
        double elapsed = (System.nanoTime() - warmupEnd) / 1e9;
        return new Result(all.getTotalCount(), elapsed, all, deadlocks.get());
    }

    /** Calls a variant's rollup every 100 ms on its own thread while a measurement runs, as a cron job would. */
    static final class RollupLoop implements AutoCloseable {
        private final Thread thread;
        private volatile boolean running = true;

        RollupLoop(Server.Db db, Variant variant) {
            String sql = variant.rollupSql(10_000);
            thread = new Thread(() -> {
                if (sql == null || Boolean.getBoolean("benchmarks.rollupPaused")) {
                    return;   // paused: to tell what the rollup's updates cost the writers from what their capture does
                }
                try (Connection c = db.connect(); var st = c.createStatement()) {
                    while (running) {
                        if (variant.isLibrary()) {
                            st.execute(Round.TAKE);   // as a worker does before each round
                        }
                        st.execute(sql);
                        Thread.sleep(100);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (SQLException e) {
                    throw new IllegalStateException(variant + " rollup failed", e);
                }
            }, "rollup-" + variant.label());
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join();
        }
    }
}
