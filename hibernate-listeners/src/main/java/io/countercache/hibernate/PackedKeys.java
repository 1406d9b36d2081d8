package io.countercache.hibernate;

import io.countercache.CounterCacheException;
import io.countercache.spi.CounterDefinition;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.metamodel.mapping.CompositeIdentifierMapping;
import org.hibernate.metamodel.mapping.EmbeddableMappingType;
import org.hibernate.metamodel.mapping.EntityIdentifierMapping;
import org.hibernate.metamodel.mapping.JdbcMapping;
import org.hibernate.metamodel.mapping.NonAggregatedIdentifierMapping;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.type.descriptor.ValueBinder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The keys the library packs for identifiers of two parts (see CounterModel): a bucket entity's, of its parent's key
 * and its start, or a two-column identifier's, of its columns in the order the counter names them.
 */
final class PackedKeys {

    /** The most starts one statement binds: PostgreSQL's protocol takes at most 65,535 parameters. */
    private static final int STARTS_PER_STATEMENT = 10_000;

    private PackedKeys() {
    }

    /**
     * The identifiers of each packed key: more than one where two identifiers name the same row, as the wall times
     * 02:00 and 03:00 of the night the clocks skip 02:00 name one instant in a {@code timestamptz} column. A bucket's
     * start is read by the database as its column keeps it, bound as Hibernate binds it: a {@code LocalDateTime} in a
     * {@code timestamptz} column is an instant in the JDBC time zone, an {@code Instant} in a {@code timestamp} column
     * a wall time there, which only the binding and the column know.
     */
    static <K> Map<UUID, List<K>> of(SharedSessionContractImplementor session, Connection c, EntityPersister persister,
                                     CounterDefinition counter, Collection<K> ids) throws SQLException {
        EntityIdentifierMapping mapping = persister.getIdentifierMapping();
        EmbeddableMappingType type = mapping instanceof NonAggregatedIdentifierMapping n
                ? (n.getIdClassEmbeddable() != null ? n.getIdClassEmbeddable() : n.getVirtualIdEmbeddable())
                : ((CompositeIdentifierMapping) mapping).getPartMappingType();
        List<String> columns = new ArrayList<>();
        List<JdbcMapping> jdbc = new ArrayList<>();
        type.forEachSelectable((i, selectable) -> {
            columns.add(unquoted(selectable.getSelectionExpression()));
            jdbc.add(selectable.getJdbcMapping());
        });
        Map<UUID, List<K>> keys = new LinkedHashMap<>();
        if (counter.pair() != null) {
            for (K id : ids) {
                Object[] values = type.getValues(id);
                Object[] parts = new Object[2];
                for (int i = 0; i < 2; i++) {
                    int at = columns.indexOf(counter.pair().targetColumns().get(i).toLowerCase(Locale.ROOT));
                    Object part = at < 0 ? null : values[at];
                    if (!(part instanceof Number || part instanceof UUID || part instanceof String)) {
                        throw new CounterCacheException(persister.getEntityName() + " id " + id + " has no "
                                + counter.pair().targetColumns().get(i));
                    }
                    parts[i] = part;
                }
                keys.computeIfAbsent(CounterDefinition.Pair.key(parts[0], parts[1]), k -> new ArrayList<>()).add(id);
            }
            return keys;
        }
        int at = columns.indexOf(counter.bucket().startColumn().toLowerCase(Locale.ROOT));
        if (at < 0) {
            throw new CounterCacheException(persister.getEntityName() + "'s identifier has no column "
                    + counter.bucket().startColumn());
        }
        List<Long> parents = new ArrayList<>();
        List<Object> starts = new ArrayList<>();
        for (K id : ids) {
            Long parent = null;
            Object start = null;
            for (Object part : type.getValues(id)) {
                if (part instanceof Number number) {
                    parent = number.longValue();
                } else if (part != null) {
                    start = part;
                }
            }
            if (parent == null || start == null) {
                throw new CounterCacheException(persister.getEntityName() + " id " + id + " has no parent key and start");
            }
            parents.add(parent);
            starts.add(start);
        }
        List<Long> seconds = epochSeconds(session, c, counter, jdbc.get(at), starts);
        int i = 0;
        for (K id : ids) {
            keys.computeIfAbsent(CounterDefinition.Bucket.key(parents.get(i), seconds.get(i)), k -> new ArrayList<>())
                    .add(id);
            i++;
        }
        return keys;
    }

    /**
     * Seconds since the epoch of each start as the bucket column keeps it (a date's midnight and a timestamp's wall
     * time read as UTC, as the database packs them): each distinct start once, in statements of at most
     * {@link #STARTS_PER_STATEMENT}.
     */
    @SuppressWarnings("unchecked")
    private static List<Long> epochSeconds(SharedSessionContractImplementor session, Connection c,
                                           CounterDefinition counter, JdbcMapping binding, List<Object> starts)
            throws SQLException {
        if (starts.isEmpty()) {
            return List.of();
        }
        List<Object> distinct = new ArrayList<>(new LinkedHashSet<>(starts));
        Map<Object, Long> seconds = new HashMap<>();
        String cast = startType(c, counter);
        ValueBinder<Object> binder = (ValueBinder<Object>) binding.getJdbcValueBinder();
        for (int from = 0; from < distinct.size(); from += STARTS_PER_STATEMENT) {
            List<Object> batch = distinct.subList(from, Math.min(distinct.size(), from + STARTS_PER_STATEMENT));
            String sql = "SELECT CAST(pg_catalog.floor(pg_catalog.date_part('epoch', x.s)) AS bigint)"
                    + " FROM pg_catalog.unnest(ARRAY[" + String.join(", ", Collections.nCopies(batch.size(),
                            "CAST(? AS " + cast + ")")) + "]) WITH ORDINALITY x(s, n) ORDER BY x.n";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < batch.size(); i++) {
                    binder.bind(ps, binding.convertToRelationalValue(batch.get(i)), i + 1, session);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    for (int i = 0; rs.next(); i++) {
                        seconds.put(batch.get(i), rs.getLong(1));
                    }
                }
            }
        }
        return starts.stream().map(seconds::get).toList();
    }

    /** The type of the bucket table's start column, one of the three a bucket may have. */
    private static String startType(Connection c, CounterDefinition counter) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT a.atttypid::pg_catalog.regtype::pg_catalog.text"
                + " FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(?)"
                + " AND a.attname OPERATOR(pg_catalog.=) ? AND NOT a.attisdropped")) {
            ps.setString(1, counter.target().sql());
            ps.setString(2, counter.bucket().startColumn());
            try (ResultSet rs = ps.executeQuery()) {
                String type = rs.next() ? rs.getString(1) : "missing";
                return switch (type) {
                    case "timestamp with time zone" -> "pg_catalog.timestamptz";
                    case "timestamp without time zone" -> "pg_catalog.timestamp";
                    case "date" -> "pg_catalog.date";
                    default -> throw new CounterCacheException(counter.declaredBy() + ": bucket column "
                            + counter.target() + "." + counter.bucket().startColumn() + " is " + type
                            + ", not a date, timestamp or timestamptz");
                };
            }
        }
    }

    private static String unquoted(String column) {
        return column.replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }
}
