package io.countercache;

import java.time.Duration;

/**
 * A snapshot of the queue and of one worker.
 *
 * @param queueDepth         deltas waiting in the queues and slots ({@code countercache.queue_state()}: exact up to
 *                           100,000, estimated above)
 * @param oldestPending      age of the first waiting delta in queue order, how far the rollup lags
 *                           ({@link Duration#ZERO} when the queue is empty)
 * @param deadLetters        dead letters: deltas a target refused, summed per target ({@code countercache.status()} per counter)
 * @param appliedDeltas      deltas this worker consumed since it was built
 * @param appliedPerSecond   the same, per second of the worker's life
 * @param failures           rollup rounds of this worker that failed (each retried with backoff)
 * @param lastError          why the latest round failed, or {@code null} when it succeeded
 * @param recounts           recounts requested and not finished ({@code countercache.recount_progress()})
 * @param recountTargets     target keys those recounts have checked so far
 */
public record RollupMetrics(long queueDepth, Duration oldestPending, long deadLetters, long appliedDeltas,
                            double appliedPerSecond, long failures, String lastError, long recounts,
                            long recountTargets) {
}
