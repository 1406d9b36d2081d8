package io.countercache.hibernate;

import org.hibernate.dialect.Dialect;
import org.hibernate.generator.EventType;
import org.hibernate.generator.OnExecutionGenerator;

import java.util.EnumSet;

/**
 * Marks a counter column as written by the database: Hibernate never writes it and reads it back after every insert
 * and update of its entity (with {@code RETURNING} on PostgreSQL), so an entity it has just saved, and the
 * second-level cache entry made from it, carry the counter's current value rather than the one loaded earlier.
 */
final class CounterColumnGenerator implements OnExecutionGenerator {

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EnumSet.of(EventType.INSERT, EventType.UPDATE);
    }

    @Override
    public boolean referenceColumnsInSql(Dialect dialect) {
        return false;
    }

    @Override
    public boolean writePropertyValue() {
        return false;
    }

    @Override
    public String[] getReferencedColumnValues(Dialect dialect) {
        return null;
    }
}
