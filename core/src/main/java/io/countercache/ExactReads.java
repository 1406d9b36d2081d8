package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.countercache.internal.Sql.ident;

/**
 * Read-your-writes: a counter's exact value, the column plus what is still pending for it (queued deltas, slots, and
 * any parked in the dead-letter or orphan table), read in one statement on the caller's connection. Inside the caller's transaction it sees the
 * caller's own uncommitted writes; the statement's single snapshot sees every committed rollup either in the column or
 * in the queue, never in both and never in neither.
 *
 * <p>The queue has no index by target, so a read scans the deltas of the queue once, however many keys it asks for.
 * The worker keeps the queue short; read many keys at once rather than one by one.
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
        Map<K, BigDecimal> values = new LinkedHashMap<>();
        if (keys.isEmpty()) {
            return values;
        }
        boolean uuid = counter.keyType() == KeyType.UUID;
        String queueKey = ident(counter.keyType().queueColumn());
        // every operator and function named by schema: the caller's search_path may hold look-alikes
        String key = "t." + ident(counter.targetKey());
        // pending amounts: both queues (the unlogged one only when the counter uses it: a standby cannot read it),
        // the slots, dead letters and orphans; each part binds the counter id and the keys
        List<String> pending = new ArrayList<>(List.of("countercache.delta", "countercache.dead_letter",
                "countercache.orphan"));
        if (counter.strategy() == Strategy.UNLOGGED) {
            pending.add("countercache.delta_unlogged");
        }
        StringBuilder union = new StringBuilder();
        for (String table : pending) {
            union.append(union.isEmpty() ? "" : " UNION ALL ").append("SELECT d.").append(queueKey)
                    .append(" AS k, d.delta FROM ").append(table).append(" d WHERE d.counter_id OPERATOR(pg_catalog.=) ?")
                    .append(" AND d.").append(queueKey).append(" OPERATOR(pg_catalog.=) ANY (?)");
        }
        union.append(" UNION ALL SELECT d.").append(queueKey).append(", d.n FROM countercache.slot d")
                .append(" WHERE d.counter_id OPERATOR(pg_catalog.=) ? AND d.").append(queueKey)
                .append(" OPERATOR(pg_catalog.=) ANY (?)");
        // the queue holds integers of 10^-scale; numeric arithmetic is exact
        String sql = "SELECT " + key + ", CAST(coalesce(t." + ident(counter.column()) + ", 0) AS pg_catalog.numeric)"
                + " OPERATOR(pg_catalog.+) (CAST(coalesce(p.n, 0) AS pg_catalog.numeric) OPERATOR(pg_catalog./) "
                + BigDecimal.ONE.movePointRight(counter.scale()).toPlainString() + ")"
                + " FROM " + counter.target().sql() + " t"
                + " LEFT JOIN (SELECT q.k, pg_catalog.sum(q.delta) AS n FROM (" + union + ")"
                + " q GROUP BY q.k) p ON p.k OPERATOR(pg_catalog.=) " + key
                + " WHERE " + key + " OPERATOR(pg_catalog.=) ANY (?)";
        Array array = connection.createArrayOf(uuid ? "uuid" : "bigint", keys.stream().map(ExactReads::normalize).toArray());
        Map<Object, BigDecimal> rows = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            int p = 1;
            for (int part = 0; part <= pending.size(); part++) {
                ps.setInt(p++, counter.id());
                ps.setArray(p++, array);
            }
            ps.setArray(p, array);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(normalize(rs.getObject(1)), rs.getBigDecimal(2).setScale(counter.scale(), RoundingMode.UNNECESSARY));
                }
            }
        } finally {
            array.free();
        }
        for (K k : keys) {
            BigDecimal value = rows.get(normalize(k));
            if (value != null) {
                values.put(k, value);
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
