package io.countercache;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a limit counter on an entity class (usually the one whose instances are limited, a customer say): at most
 * {@link #limit()} admissions per key in each {@link #period()}, exactly, under any concurrency. Delivered by the
 * generated Liquibase changelog like the counters; ask with {@link Limits#admit} (or
 * {@code CounterCaches.admit(em, ...)}, or {@code SELECT countercache.admit(name, key)}).
 *
 * <pre>{@code
 * @Entity @CounterLimit(name = "api_calls", period = "1 day", limit = 20_000)
 * class Customer { ... }
 *
 * Limits.Admission a = Limits.admit(connection, "api_calls", customer.getId());
 * if (!a.admitted()) throw new TooManyRequests(a.limit());
 * }</pre>
 *
 * <p>Keys that need another limit for a while get one with {@code SELECT countercache.set_key_limit(name, key, n,
 * from, until)}; two ranges of one key may not overlap.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Repeatable(CounterLimit.List.class)
public @interface CounterLimit {

    /** The limit's name, unique in the database: {@code "api_calls"}. */
    String name();

    /** The period, as a PostgreSQL interval: {@code "1 day"}, {@code "1 hour"}, {@code "15 minutes"}, {@code "1 month"}. */
    String period();

    /** Admissions per key and period, unless a key has a limit of its own. */
    long limit();

    /** The time zone in which periods are aligned (a day starts at midnight there). Default: {@code UTC}. */
    String timeZone() default "UTC";

    /** Past periods whose counts are kept (for reports) before they are deleted. Default: 2. */
    int retention() default 2;

    /** Several limits on one class. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface List {
        CounterLimit[] value();
    }
}
