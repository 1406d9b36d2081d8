package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Read-your-writes: a counter's exact value, the column plus what is still pending for it (queued deltas, slots, and
 * any parked in the dead-letter or orphan table), read in one statement on the caller's connection. Inside the caller's transaction it sees the
 * caller's own uncommitted writes; the statement's single snapshot sees every committed rollup either in the column or
 * in the queue, never in both and never in neither.
 *
 * <p>It calls {@code countercache.exact}. The queue has no index by target, so a read scans the deltas of the queue
 * once, however many keys it asks for. The worker keeps the queue short; read many keys at once rather than one by one.
 */
public final class ExactReads {

    private ExactReads() {
    }

    /**
     * The exact values of one counter for these target keys (any {@code Number} for integer and bigint keys,
     * {@code UUID} for uuid keys), keyed by the keys as given, in their order. Keys of rows that do not exist are
     * absent from the map.
     */
    public static <K> Map<K, Long> read(Connection connection, CounterDefinition counter, Collection<K> keys)
            throws SQLException {
        if (counter.scale() > 0) {
            throw new IllegalArgumentException(counter.declaredBy() + " is a " + counter.columnType()
                    + " sum; read it with readDecimal");
        }
        Map<K, Long> values = new LinkedHashMap<>();
        readDecimal(connection, counter, keys).forEach((k, v) -> values.put(k, v.longValueExact()));
        return values;
    }

    /**
     * The exact values of a counter of any kind, as {@link BigDecimal}s with the column's scale ({@code numeric(p,s)}
     * sums) or none (integer counters); otherwise as {@link #read}.
     */
    public static <K> Map<K, BigDecimal> readDecimal(Connection connection, CounterDefinition counter, Collection<K> keys)
            throws SQLException {
        if (counter.extreme() != null) {
            throw new IllegalArgumentException(counter.declaredBy() + " is a " + counter.extreme().function()
                    + "; read it with readExtreme");
        }
        Map<K, BigDecimal> values = new LinkedHashMap<>();
        values(connection, counter, keys).forEach((k, v) -> values.put(k, v.setScale(counter.scale(), RoundingMode.UNNECESSARY)));
        return values;
    }

    /**
     * The exact values of a min or max counter, read from its source by the counter's index, as {@code type}: the
     * field's type ({@code Long}, {@code Integer}, {@code Short}, {@code BigDecimal}, {@code Instant},
     * {@code OffsetDateTime} (at UTC), {@code LocalDateTime}, {@code LocalDate}); a key whose target has no row
     * that counts maps to null. Keys of rows that do not exist are absent.
     */
    public static <K, T> Map<K, T> readExtreme(Connection connection, CounterDefinition counter, Collection<K> keys,
                                               Class<T> type) throws SQLException {
        if (counter.extreme() == null) {
            throw new IllegalArgumentException(counter.declaredBy() + " is not a min or max; read it with readDecimal");
        }
        Map<K, T> values = new LinkedHashMap<>();
        values(connection, counter, keys).forEach((k, v) -> values.put(k, v == null ? null : type.cast(as(v, type))));
        return values;
    }

    /** A min or max as {@code countercache.exact} reports it (a time as seconds since the epoch), as {@code type}. */
    private static Object as(BigDecimal v, Class<?> type) {
        if (type == Long.class) {
            return v.longValueExact();
        } else if (type == Integer.class) {
            return v.intValueExact();
        } else if (type == Short.class) {
            return v.shortValueExact();
        } else if (type == BigDecimal.class) {
            return v;
        }
        BigDecimal seconds = v.setScale(0, RoundingMode.FLOOR);
        Instant instant = Instant.ofEpochSecond(seconds.longValueExact(), v.subtract(seconds).movePointRight(9).intValueExact());
        if (type == Instant.class) {
            return instant;
        } else if (type == OffsetDateTime.class) {
            return instant.atOffset(ZoneOffset.UTC);
        } else if (type == LocalDateTime.class) {
            return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
        } else if (type == LocalDate.class) {
            return LocalDate.ofInstant(instant, ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("a min or max cannot be read as " + type.getName());
    }

    /** What {@code countercache.exact} returns for these keys, in their order (a value may be null: a min or max). */
    private static <K> Map<K, BigDecimal> values(Connection connection, CounterDefinition counter, Collection<K> keys)
            throws SQLException {
        Map<K, BigDecimal> values = new LinkedHashMap<>();
        if (keys.isEmpty()) {
            return values;
        }
        boolean uuid = counter.keyType() == KeyType.UUID;
        Array array = connection.createArrayOf(uuid ? "uuid" : "bigint", keys.stream().map(ExactReads::normalize).toArray());
        Map<Object, BigDecimal> rows = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT e.target_id, e.target_uuid, e.value FROM countercache.exact(?, CAST(? AS pg_catalog.int8[]), CAST(? AS pg_catalog.uuid[])) e")) {
            ps.setInt(1, counter.id());
            ps.setArray(uuid ? 3 : 2, array);
            ps.setNull(uuid ? 2 : 3, java.sql.Types.ARRAY);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(normalize(rs.getObject(uuid ? 2 : 1)), rs.getBigDecimal(3));
                }
            }
        } finally {
            array.free();
        }
        for (K k : keys) {
            Object key = normalize(k);
            if (rows.containsKey(key)) {
                values.put(k, rows.get(key));
            }
        }
        return values;
    }

    private static Object normalize(Object key) {
        if (key instanceof Number n) {
            return n.longValue();
        }
        if (key instanceof UUID) {
            return key;
        }
        throw new IllegalArgumentException("a counter key must be a Number or a UUID, got "
                + (key == null ? "null" : key.getClass().getName()));
    }
}
