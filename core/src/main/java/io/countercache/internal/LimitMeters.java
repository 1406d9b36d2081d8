package io.countercache.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts what {@link io.countercache.Limits#admit} decides, on Micrometer's global registry (Spring Boot adds the
 * application's registry to it): {@code countercache.limit.admissions}, tagged {@code limit} and {@code outcome}
 * ({@code admitted} or {@code rejected}). Called only when Micrometer is on the class path
 * ({@link io.countercache.spi.OptionalDependencies#MICROMETER}), so that nothing loads this class without it.
 */
public final class LimitMeters {

    /** Each limit's two counters, registered once: an admission is on the request path. */
    private static final Map<String, Counter[]> COUNTERS = new ConcurrentHashMap<>();

    private LimitMeters() {
    }

    public static void record(String limit, boolean admitted) {
        COUNTERS.computeIfAbsent(limit, l -> new Counter[] {counter(l, "admitted"), counter(l, "rejected")})
                [admitted ? 0 : 1].increment();
    }

    private static Counter counter(String limit, String outcome) {
        return Counter.builder("countercache.limit.admissions").description("What Limits.admit decided, per limit and outcome")
                .tag("limit", limit).tag("outcome", outcome).register(Metrics.globalRegistry);
    }
}
