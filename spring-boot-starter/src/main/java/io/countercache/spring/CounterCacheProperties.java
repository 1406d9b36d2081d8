package io.countercache.spring;

import io.countercache.RollupWorker;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * countercache's settings in Spring Boot's configuration ({@code countercache.*}); the starter hands them to
 * Hibernate as the settings of {@link io.countercache.hibernate.CounterCacheSettings}.
 */
@ConfigurationProperties("countercache")
public class CounterCacheProperties {

    /**
     * What to do at boot when the database does not count what the entities declare: fail, warn or none.
     */
    private String validation = "fail";

    /**
     * The strategy of every @CounterCache that names none: queue, unlogged, direct or slotted. Pass the same to the
     * changelog generator (the Maven plugin reads it from this file).
     */
    private String strategy;

    private final Worker worker = new Worker();

    private final Health health = new Health();

    /**
     * Keep the second-level cache in step with the in-process workers (soft-lock the entries of the rows a round
     * changes).
     */
    private boolean cacheEvict = true;

    public String getValidation() {
        return validation;
    }

    public void setValidation(String validation) {
        this.validation = validation;
    }

    public String getStrategy() {
        return strategy;
    }

    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }

    public Worker getWorker() {
        return worker;
    }

    public Health getHealth() {
        return health;
    }

    public boolean isCacheEvict() {
        return cacheEvict;
    }

    public void setCacheEvict(boolean cacheEvict) {
        this.cacheEvict = cacheEvict;
    }

    /** The rollup workers that run inside the application, on its DataSource, for the life of the context. */
    public static class Worker {

        /** Run rollup workers in this application. Turn it off where another service runs them. */
        private boolean enabled = true;

        /** How many workers; they share the queue without waiting for each other. */
        private int threads = 1;

        /** Deltas claimed per rollup round (each round is one transaction). */
        private int batchSize = RollupWorker.DEFAULT_BATCH_SIZE;

        /** How long a worker sleeps once the queue is empty. */
        private Duration pollInterval = Duration.ofMillis(RollupWorker.DEFAULT_POLL_INTERVAL_MILLIS);

        /** The longest wait between retries while the database fails. */
        private Duration maxBackoff = Duration.ofMillis(RollupWorker.DEFAULT_MAX_BACKOFF_MILLIS);

        /** How long shutting down lets a round in progress run before cancelling it (its deltas stay queued). */
        private Duration shutdownTimeout = Duration.ofMillis(RollupWorker.DEFAULT_SHUTDOWN_TIMEOUT_MILLIS);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    /** The countercache health indicator. */
    public static class Health {

        /**
         * The indicator is DOWN when the first pending delta in queue order is older than this (the workers fall behind
         * or stopped).
         */
        private Duration maxLag = Duration.ofMinutes(1);

        public Duration getMaxLag() {
            return maxLag;
        }

        public void setMaxLag(Duration maxLag) {
            this.maxLag = maxLag;
        }
    }
}
