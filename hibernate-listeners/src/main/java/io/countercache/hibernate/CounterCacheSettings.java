package io.countercache.hibernate;

/**
 * Every setting the Hibernate integration reads, with its default. Set them like any Hibernate property: in
 * {@code persistence.xml}, in {@code hibernate.properties}, or with Spring Boot without the starter as
 * {@code spring.jpa.properties.countercache.worker.enabled=true}. With the Spring Boot starter, set its
 * {@code countercache.*} properties instead: it writes every one of these settings from them, over
 * {@code spring.jpa.properties}.
 */
public final class CounterCacheSettings {

    /**
     * What to do at boot when the database does not count what the entities declare (a counter missing, a changed
     * {@code where}, a capture trigger missing, a counter installed but no longer declared): {@code fail} the boot,
     * {@code warn} in the log and boot, or {@code none} to skip the check. Default: {@code fail}.
     */
    public static final String VALIDATION = "countercache.validation";

    /**
     * The strategy of every {@code @CounterCache} that does not name one: {@code queue}, {@code unlogged},
     * {@code direct} or {@code slotted} (see {@link io.countercache.Strategy}). Read when the changelog is generated
     * and when Hibernate boots, so pass it to both. Default: {@code queue}.
     */
    public static final String STRATEGY = "countercache.strategy";

    /**
     * Run rollup workers inside the application, on Hibernate's own connections, started when the SessionFactory is
     * created and stopped when it closes. Default: {@code false} (run the worker elsewhere: another service, or
     * {@code io.countercache.RollupWorker} on a DataSource of your own).
     */
    public static final String WORKER_ENABLED = "countercache.worker.enabled";

    /** How many in-process workers; they share the queue without waiting for each other. Default: {@code 1}. */
    public static final String WORKER_THREADS = "countercache.worker.threads";

    /** Deltas claimed per rollup round, each round one transaction. Default: {@code 10000}. */
    public static final String WORKER_BATCH_SIZE = "countercache.worker.batch_size";

    /** Milliseconds an in-process worker sleeps once the queue is empty. Default: {@code 200}. */
    public static final String WORKER_POLL_INTERVAL = "countercache.worker.poll_interval";

    /** The longest wait, in milliseconds, between retries while the database fails. Default: {@code 30000}. */
    public static final String WORKER_MAX_BACKOFF = "countercache.worker.max_backoff";

    /**
     * Milliseconds that closing the SessionFactory lets a round in progress run before cancelling it (a cancelled
     * round rolls back; its deltas stay queued). Default: {@code 30000}.
     */
    public static final String WORKER_SHUTDOWN_TIMEOUT = "countercache.worker.shutdown_timeout";

    /**
     * Keep the second-level cache in step with in-process workers: soft-lock the cache entries of the target rows a
     * round changed before it commits and release them after (for {@code nonstrict-read-write}, evict them). Default:
     * {@code true}. Has no effect on entities that are not cached.
     */
    public static final String CACHE_EVICT = "countercache.cache.evict";

    /**
     * Register the in-process workers' meters with Micrometer's global registry when Micrometer is on the classpath.
     * Default: {@code true}.
     */
    public static final String METRICS = "countercache.metrics";

    private CounterCacheSettings() {
    }
}
