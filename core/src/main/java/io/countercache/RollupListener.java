package io.countercache;

import java.util.List;

/**
 * Told, after a rollup round has committed, which target rows of a counter it changed, so that cached copies of
 * those rows (a second-level cache, an HTTP cache) can be evicted. Called on the worker's thread; keep it quick.
 */
@FunctionalInterface
public interface RollupListener {

    /**
     * @param counterId the counter ({@code countercache.counter.id}, {@link io.countercache.spi.CounterDefinition#id()})
     * @param targets   the keys of the target rows: {@code Long} for integer and bigint keys, {@code UUID} for uuid keys
     */
    void rolledUp(int counterId, List<Object> targets);
}
