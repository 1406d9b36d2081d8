package io.countercache;

import java.util.Locale;

/**
 * How a counter's writes reach its column. Every strategy is exact: the column plus what is pending for it (see
 * {@link ExactReads}) always equals a recount of the source, and a recount corrects it online. They differ in what a
 * writer pays and waits for, and in how stale the column is. README, "Choosing a strategy", compares them.
 */
public enum Strategy {

    /** The persistence unit's default: the setting {@code countercache.strategy}, else {@link #QUEUE}. */
    DEFAULT,

    /**
     * Writers queue deltas in a logged table; a rollup worker folds them into the column. Writers never wait for a
     * counter row. The column lags by the worker's interval.
     */
    QUEUE,

    /**
     * As {@link #QUEUE}, into an unlogged queue: less WAL per write. A crash or an immediate shutdown empties it;
     * the rollup notices and recounts these counters online, so the cost of a crash is staleness, never a wrong
     * value. Not readable on a standby: exact reads of these counters must run on the primary.
     */
    UNLOGGED,

    /**
     * The writer's transaction updates the column itself ({@code UPDATE target SET n = n + d}), as Rails' counter
     * cache does: exact at commit, but writers of one target wait for each other and can deadlock. For counters that
     * are never hot.
     */
    DIRECT,

    /**
     * GitHub's slotted counters and Tobias Petry's fanout: the writer adds to one of N slot rows of the target,
     * preferring one that no other transaction holds ({@code FOR UPDATE SKIP LOCKED}), else a random one; the rollup
     * folds the slots into the column. For hot targets whose pending amount must stay small and bounded.
     */
    SLOTTED;

    /** The name in the catalog ({@code strategy} of {@code countercache.counters()}) and in settings. */
    public String sqlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The strategy a setting or catalog value names, or an error that lists the choices. */
    public static Strategy of(String name, String what) {
        for (Strategy s : values()) {
            if (s != DEFAULT && s.sqlName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new CounterCacheException(what + " = \"" + name + "\" must be queue, unlogged, direct or slotted");
    }
}
