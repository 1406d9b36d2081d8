package io.countercache.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;

/**
 * Counts what {@link io.countercache.Limits#admit} decides, on Micrometer's global registry (Spring Boot adds the
 * application's registry to it): {@code countercache.limit.admissions}, tagged {@code limit} and {@code outcome}
 * ({@code admitted} or {@code rejected}). Called only when Micrometer is on the class path
 * ({@link io.countercache.spi.OptionalDependencies#MICROMETER}), so that nothing loads this class without it.
 */
public final class LimitMeters {

    private LimitMeters() {
    }

    public static void record(String limit, boolean admitted) {
        Counter.builder("countercache.limit.admissions").description("What Limits.admit decided, per limit and outcome")
                .tag("limit", limit).tag("outcome", admitted ? "admitted" : "rejected").register(Metrics.globalRegistry)
                .increment();
    }
}
