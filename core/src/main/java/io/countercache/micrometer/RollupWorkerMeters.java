package io.countercache.micrometer;

import io.countercache.RollupMetrics;
import io.countercache.RollupWorker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link RollupWorker}, tagged {@code worker=<name>}. With Spring Boot, declare it as a bean
 * and it is bound to the application's registry; elsewhere call {@link #bindTo(MeterRegistry)}.
 *
 * <ul>
 *   <li>{@code countercache.queue.depth}: deltas waiting (gauge)</li>
 *   <li>{@code countercache.queue.oldest}: age of the first waiting delta in queue order (time gauge)</li>
 *   <li>{@code countercache.dead.letters}: summed deltas parked because their target refused them (gauge)</li>
 *   <li>{@code countercache.deltas.applied}: deltas this worker consumed (counter; its rate is the throughput)</li>
 *   <li>{@code countercache.rollup.failures}: rounds that failed and were retried (counter)</li>
 * </ul>
 *
 * The three queue gauges come from one query, made at most once a second however often they are scraped. The
 * registry holds this binder strongly, so {@code new RollupWorkerMeters(worker).bindTo(registry)} is enough.
 */
public final class RollupWorkerMeters implements MeterBinder, AutoCloseable {

    private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RollupWorker worker;
    private final List<Runnable> removals = new ArrayList<>();
    private RollupMetrics last;
    private long readAt;

    public RollupWorkerMeters(RollupWorker worker) {
        this.worker = worker;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        String tag = worker.name();
        List<Meter> meters = List.of(Gauge.builder("countercache.queue.depth", this, queue(RollupMetrics::queueDepth))
                .description("Deltas waiting in the queues and slots").baseUnit("deltas").tag("worker", tag).strongReference(true).register(registry),
                TimeGauge.builder("countercache.queue.oldest", this, TimeUnit.MILLISECONDS,
                        queue(m -> m.oldestPending().toMillis()))
                .description("Age of the first waiting delta in queue order").tag("worker", tag).strongReference(true).register(registry),
                Gauge.builder("countercache.dead.letters", this, queue(RollupMetrics::deadLetters))
                .description("Dead letters: deltas a target refused, summed per target").tag("worker", tag).strongReference(true)
                .register(registry),
                FunctionCounter.builder("countercache.deltas.applied", worker, RollupWorker::appliedDeltas)
                .description("Deltas this worker folded into counters").baseUnit("deltas").tag("worker", tag)
                .register(registry),
                FunctionCounter.builder("countercache.rollup.failures", worker, RollupWorker::failures)
                .description("Rollup rounds that failed and were retried").tag("worker", tag).register(registry),
                Gauge.builder("countercache.recounts", this, queue(RollupMetrics::recounts))
                .description("Recounts requested and not finished").tag("worker", tag).strongReference(true)
                .register(registry),
                Gauge.builder("countercache.recount.targets", this, queue(RollupMetrics::recountTargets))
                .description("Target keys the running recounts have checked").baseUnit("targets").tag("worker", tag)
                .strongReference(true).register(registry));
        synchronized (removals) {
            meters.forEach(m -> removals.add(() -> registry.remove(m)));
        }
    }

    /** Removes the meters from every registry this binder bound them to (for a worker that is gone). */
    @Override
    public void close() {
        synchronized (removals) {
            removals.forEach(Runnable::run);
            removals.clear();
        }
    }

    private static ToDoubleFunction<RollupWorkerMeters> queue(ToDoubleFunction<RollupMetrics> value) {
        return meters -> {
            RollupMetrics m = meters.snapshot();
            return m == null ? Double.NaN : value.applyAsDouble(m);
        };
    }

    private synchronized RollupMetrics snapshot() {
        if (readAt == 0 || System.nanoTime() - readAt > REFRESH_NANOS) {
            try {
                last = worker.metrics();
            } catch (RuntimeException e) {
                last = null;   // the database is unreachable: the gauges report NaN until it answers again
            } finally {
                readAt = System.nanoTime();   // from the read's end, so a slow or failed read serves every gauge
            }
        }
        return last;
    }
}
