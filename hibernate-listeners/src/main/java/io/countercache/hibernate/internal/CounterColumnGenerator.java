package io.countercache.hibernate.internal;

import org.hibernate.dialect.Dialect;
import org.hibernate.generator.EventType;
import org.hibernate.generator.OnExecutionGenerator;
import org.hibernate.mapping.GeneratorCreator;

import java.util.EnumSet;

/**
 * Marks a counter column as written by the database: Hibernate never writes it and reads it back after every insert
 * (with {@code RETURNING} on PostgreSQL) and update (with a {@code SELECT} after the {@code UPDATE}, see
 * {@link CounterPersisters}) of its entity, so an entity it has just saved, and the second-level cache entry made
 * from it, carry the counter's current value rather than the one loaded earlier.
 */
final class CounterColumnGenerator implements OnExecutionGenerator {

    /** The one creator the integrator installs, by which {@link CounterPersisters.Resolver} knows counter entities. */
    static final GeneratorCreator CREATOR = context -> new CounterColumnGenerator();

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
