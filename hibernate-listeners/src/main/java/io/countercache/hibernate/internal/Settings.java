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
        return new Settings(validation,
                bool(properties, CounterCacheSettings.WORKER_ENABLED, false),
                number(properties, CounterCacheSettings.WORKER_THREADS, 1),
                number(properties, CounterCacheSettings.WORKER_BATCH_SIZE, RollupWorker.DEFAULT_BATCH_SIZE),
                millis(properties, CounterCacheSettings.WORKER_POLL_INTERVAL, RollupWorker.DEFAULT_POLL_INTERVAL_MILLIS),
                millis(properties, CounterCacheSettings.WORKER_MAX_BACKOFF, RollupWorker.DEFAULT_MAX_BACKOFF_MILLIS),
                millis(properties, CounterCacheSettings.WORKER_SHUTDOWN_TIMEOUT, RollupWorker.DEFAULT_SHUTDOWN_TIMEOUT_MILLIS),
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

    private static int number(Map<String, Object> properties, String key, int otherwise) {
        Object v = properties.get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(v.toString().trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CounterCacheException("setting " + key + " = \"" + v + "\" must be a whole number of at least 1");
    }

    private static Duration millis(Map<String, Object> properties, String key, int otherwise) {
        return Duration.ofMillis(number(properties, key, otherwise));
    }
}
