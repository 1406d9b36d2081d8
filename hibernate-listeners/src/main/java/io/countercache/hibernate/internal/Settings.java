package io.countercache.hibernate.internal;

import io.countercache.CounterCacheException;
import io.countercache.RollupWorker;
import io.countercache.hibernate.CounterCacheSettings;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@link CounterCacheSettings} of one SessionFactory, parsed once; defaults are the worker builder's. A bad value
 * fails the boot with the setting's name and what it must be.
 */
record Settings(String validation, boolean workerEnabled, int workerThreads, int batchSize, Duration pollInterval,
                Duration maxBackoff, Duration shutdownTimeout, boolean cacheEvict, boolean metrics) {

    static Settings of(Map<String, Object> properties) {
        String validation = String.valueOf(properties.getOrDefault(CounterCacheSettings.VALIDATION, "fail")).trim()
                .toLowerCase(Locale.ROOT);
        if (!List.of("fail", "warn", "none").contains(validation)) {
            throw new CounterCacheException("setting " + CounterCacheSettings.VALIDATION + " = \"" + validation
                    + "\" must be fail, warn or none");
        }
        Duration pollInterval = millis(properties, CounterCacheSettings.WORKER_POLL_INTERVAL,
                RollupWorker.DEFAULT_POLL_INTERVAL_MILLIS, 1);
        Duration maxBackoff = millis(properties, CounterCacheSettings.WORKER_MAX_BACKOFF,
                RollupWorker.DEFAULT_MAX_BACKOFF_MILLIS, 1);
        if (maxBackoff.compareTo(pollInterval) < 0) {
            throw new CounterCacheException("setting " + CounterCacheSettings.WORKER_MAX_BACKOFF + " = "
                    + maxBackoff.toMillis() + " must be at least " + CounterCacheSettings.WORKER_POLL_INTERVAL + " = "
                    + pollInterval.toMillis() + ": the worker waits at least a poll interval between retries");
        }
        return new Settings(validation,
                bool(properties, CounterCacheSettings.WORKER_ENABLED, false),
                number(properties, CounterCacheSettings.WORKER_THREADS, 1, 1),
                number(properties, CounterCacheSettings.WORKER_BATCH_SIZE, RollupWorker.DEFAULT_BATCH_SIZE, 1),
                pollInterval, maxBackoff,
                // 0: cancel the round in progress at once
                millis(properties, CounterCacheSettings.WORKER_SHUTDOWN_TIMEOUT, RollupWorker.DEFAULT_SHUTDOWN_TIMEOUT_MILLIS, 0),
                bool(properties, CounterCacheSettings.CACHE_EVICT, true),
                bool(properties, CounterCacheSettings.METRICS, true));
    }

    private static boolean bool(Map<String, Object> properties, String key, boolean otherwise) {
        Object v = properties.get(key);
        if (v == null) {
            return otherwise;
        }
        String s = v.toString().trim().toLowerCase(Locale.ROOT);
        if (!s.equals("true") && !s.equals("false")) {
            throw new CounterCacheException("setting " + key + " = \"" + v + "\" must be true or false");
        }
        return Boolean.parseBoolean(s);
    }

    private static int number(Map<String, Object> properties, String key, int otherwise, int least) {
        Object v = properties.get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(v.toString().trim());
            if (n >= least) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CounterCacheException("setting " + key + " = \"" + v + "\" must be a whole number of at least " + least);
    }

    private static Duration millis(Map<String, Object> properties, String key, int otherwise, int least) {
        return Duration.ofMillis(number(properties, key, otherwise, least));
    }
}
