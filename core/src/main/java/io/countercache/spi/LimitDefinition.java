package io.countercache.spi;

import io.countercache.CounterCacheException;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One limit counter, as an integration hands it to {@link Installation}.
 *
 * @param declaredBy   who declared it, for messages: {@code @CounterLimit(name = "api_calls") on Customer}
 * @param name         the limit's name, unique in the database
 * @param period       a PostgreSQL interval of whole units: {@code 1 day}, {@code 15 minutes}, {@code 1 month}
 * @param defaultLimit admissions per key and period
 * @param timeZone     where periods are aligned
 * @param retention    past periods kept
 */
public record LimitDefinition(String declaredBy, String name, String period, long defaultLimit, String timeZone,
                              int retention) {

    private static final String UNIT = "(second|minute|hour|day|week|month|year)s?";
    private static final Pattern PERIOD = Pattern.compile("\\s*\\d+\\s*" + UNIT + "(\\s+\\d+\\s*" + UNIT + ")*\\s*");

    public LimitDefinition {
        Objects.requireNonNull(declaredBy, "declaredBy");
        if (name == null || name.isBlank()) {
            throw new CounterCacheException(declaredBy + ": a limit needs a name");
        }
        if (period == null || !PERIOD.matcher(period).matches()) {
            throw new CounterCacheException(declaredBy + ": period = \"" + period + "\" is not an interval of whole"
                    + " units; write it as \"1 day\", \"1 hour\", \"15 minutes\" or \"1 month\"");
        }
        if (defaultLimit < 0) {
            throw new CounterCacheException(declaredBy + ": limit = " + defaultLimit + " is negative; use 0 or more");
        }
        if (timeZone == null || timeZone.isBlank()) {
            throw new CounterCacheException(declaredBy + ": timeZone is empty; use a zone name such as \"UTC\"");
        }
        if (retention < 1) {
            throw new CounterCacheException(declaredBy + ": retention = " + retention + "; keep at least 1 past period");
        }
    }
}
