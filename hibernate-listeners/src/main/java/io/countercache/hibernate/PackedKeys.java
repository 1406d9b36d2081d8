package io.countercache.hibernate;

import io.countercache.CounterCacheException;
import io.countercache.spi.CounterDefinition;
import org.hibernate.metamodel.mapping.CompositeIdentifierMapping;
import org.hibernate.metamodel.mapping.EmbeddableMappingType;
import org.hibernate.metamodel.mapping.EntityIdentifierMapping;
import org.hibernate.metamodel.mapping.NonAggregatedIdentifierMapping;
import org.hibernate.persister.entity.EntityPersister;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The key the library packs for an identifier of two parts (see CounterModel): a bucket entity's, of its parent's key
 * and its start, or a two-column identifier's, of its columns in the order the counter names them.
 */
final class PackedKeys {

    private PackedKeys() {
    }

    static UUID of(EntityPersister persister, CounterDefinition counter, Object id) {
        EntityIdentifierMapping mapping = persister.getIdentifierMapping();
        EmbeddableMappingType type = mapping instanceof NonAggregatedIdentifierMapping n
                ? (n.getIdClassEmbeddable() != null ? n.getIdClassEmbeddable() : n.getVirtualIdEmbeddable())
                : ((CompositeIdentifierMapping) mapping).getPartMappingType();
        if (counter.pair() != null) {
            Object[] values = type.getValues(id);
            List<String> columns = new ArrayList<>();
            type.forEachSelectable((i, selectable) -> columns.add(unquoted(selectable.getSelectionExpression())));
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
            return CounterDefinition.Pair.key(parts[0], parts[1]);
        }
        Long parent = null, start = null;
        for (Object part : type.getValues(id)) {
            if (part instanceof Number number) {
                parent = number.longValue();
            } else if (part != null) {
                start = epochSecond(part);
            }
        }
        if (parent == null || start == null) {
            throw new CounterCacheException(persister.getEntityName() + " id " + id + " has no parent key and start");
        }
        return CounterDefinition.Bucket.key(parent, start);
    }

    private static String unquoted(String column) {
        return column.replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }

    /** Seconds since the epoch, a date's midnight and a timestamp's wall time read as UTC (as the database packs). */
    private static long epochSecond(Object start) {
        if (start instanceof LocalDate d) {
            return d.toEpochDay() * 86_400;
        }
        if (start instanceof LocalDateTime t) {
            return t.toEpochSecond(ZoneOffset.UTC);
        }
        if (start instanceof Instant i) {
            return i.getEpochSecond();
        }
        if (start instanceof OffsetDateTime t) {
            return t.toEpochSecond();
        }
        if (start instanceof ZonedDateTime t) {
            return t.toEpochSecond();
        }
        if (start instanceof java.sql.Date d) {
            return d.toLocalDate().toEpochDay() * 86_400;
        }
        if (start instanceof java.util.Date d) {
            return new java.sql.Timestamp(d.getTime()).toLocalDateTime().toEpochSecond(ZoneOffset.UTC);
        }
        throw new CounterCacheException("a bucket starts at a time, not a " + start.getClass().getSimpleName());
    }
}
