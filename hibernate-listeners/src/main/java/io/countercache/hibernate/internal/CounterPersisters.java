package io.countercache.hibernate.internal;

import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cache.spi.access.EntityDataAccess;
import org.hibernate.cache.spi.access.NaturalIdDataAccess;
import org.hibernate.generator.values.GeneratedValuesMutationDelegate;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.metamodel.spi.RuntimeModelCreationContext;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.persister.entity.JoinedSubclassEntityPersister;
import org.hibernate.persister.entity.SingleTableEntityPersister;
import org.hibernate.persister.entity.UnionSubclassEntityPersister;
import org.hibernate.persister.internal.StandardPersisterClassResolver;
import org.hibernate.service.spi.ServiceContributor;

/**
 * Hibernate's entity persisters for entities with counters, changed in one thing: an update reads the counters back
 * with a {@code SELECT} after the {@code UPDATE}, not with {@code UPDATE ... RETURNING}. Inserts keep
 * {@code RETURNING}.
 * <p>
 * Why: Hibernate 7.4 checks the row count of an {@code UPDATE} only when it reads nothing back with it; its
 * {@code RETURNING} path never runs the check, and fails on an empty result instead. An update of a row another
 * transaction deleted then threw a bare {@code HibernateException} ("The database returned no natively generated
 * values") where every other entity throws {@code StaleObjectStateException} ({@code OptimisticLockException} in
 * JPA). With no update delegate, Hibernate takes the path it takes on databases without {@code UPDATE ... RETURNING}:
 * it checks the row count, then selects the counters by id. The select runs in the same transaction, after the
 * {@code UPDATE} has locked the row, so it reads what {@code RETURNING} would have.
 * <p>
 * {@link Contributor} (registered through {@code META-INF/services}) installs {@link Resolver} as
 * {@code hibernate.persister.resolver} unless the application names a resolver of its own.
 */
public final class CounterPersisters {

    static final String RESOLVER_SETTING = "hibernate.persister.resolver";

    private CounterPersisters() {
    }

    /** Installs {@link Resolver} unless {@value #RESOLVER_SETTING} is already set. */
    public static final class Contributor implements ServiceContributor {
        @Override
        public void contribute(StandardServiceRegistryBuilder builder) {
            if (!builder.getSettings().containsKey(RESOLVER_SETTING)) {
                builder.applySetting(RESOLVER_SETTING, Resolver.class);
            }
        }
    }

    /** Hibernate's persister classes, with the ones below for entities that have a counter. */
    public static final class Resolver extends StandardPersisterClassResolver {
        @Override
        public Class<? extends EntityPersister> getEntityPersisterClass(PersistentClass entity) {
            Class<? extends EntityPersister> standard = super.getEntityPersisterClass(entity);
            boolean counted = entity.getPropertyClosure().stream()
                    .anyMatch(p -> p.getValueGeneratorCreator() == CounterColumnGenerator.CREATOR);
            if (!counted) {
                return standard;
            } else if (standard == SingleTableEntityPersister.class) {
                return SingleTable.class;
            } else if (standard == JoinedSubclassEntityPersister.class) {
                return Joined.class;
            } else if (standard == UnionSubclassEntityPersister.class) {
                return Union.class;
            }
            return standard;
        }
    }

    public static final class SingleTable extends SingleTableEntityPersister {
        public SingleTable(PersistentClass entity, EntityDataAccess cache, NaturalIdDataAccess naturalIdCache,
                           RuntimeModelCreationContext context) {
            super(entity, cache, naturalIdCache, context);
        }

        @Override
        protected GeneratedValuesMutationDelegate createUpdateDelegate() {
            return null;
        }
    }

    public static final class Joined extends JoinedSubclassEntityPersister {
        public Joined(PersistentClass entity, EntityDataAccess cache, NaturalIdDataAccess naturalIdCache,
                      RuntimeModelCreationContext context) {
            super(entity, cache, naturalIdCache, context);
        }

        @Override
        protected GeneratedValuesMutationDelegate createUpdateDelegate() {
            return null;
        }
    }

    public static final class Union extends UnionSubclassEntityPersister {
        public Union(PersistentClass entity, EntityDataAccess cache, NaturalIdDataAccess naturalIdCache,
                     RuntimeModelCreationContext context) {
            super(entity, cache, naturalIdCache, context);
        }

        @Override
        protected GeneratedValuesMutationDelegate createUpdateDelegate() {
            return null;
        }
    }
}
