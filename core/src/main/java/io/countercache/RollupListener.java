package io.countercache;

import java.util.List;
import java.util.Map;

/**
 * Told which target rows a rollup round changed, while its transaction is still open, so that cached copies of those
 * rows (a second-level cache, an HTTP cache) can be locked before the new values become visible and released after.
 * Called on the worker's thread; keep it quick. If {@link #applied} throws, the round rolls back and is retried with
 * the worker's backoff, as for a database failure: a cache that cannot be kept right holds the counters back.
 */
@FunctionalInterface
public interface RollupListener {

    /**
     * The round has applied its deltas and is about to commit.
     *
     * @param touched per counter id ({@link io.countercache.spi.CounterDefinition#id()}), the keys of the target rows
     *                it changed: {@code Long} for integer and bigint keys, {@code UUID} for uuid keys
     * @return told once the round's transaction has ended, committed or not
     */
    AfterRound applied(Map<Integer, List<Object>> touched);

    /** What a listener does once the round it saw has committed or rolled back. */
    @FunctionalInterface
    interface AfterRound {
        void ended(boolean committed);
    }
}
