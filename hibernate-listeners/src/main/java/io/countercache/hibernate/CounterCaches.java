package io.countercache.hibernate;

import io.countercache.CounterCacheException;
import io.countercache.ExactReads;
import io.countercache.Limits;
import io.countercache.RollupWorker;
import io.countercache.hibernate.internal.CounterCacheService;
import io.countercache.spi.CounterDefinition;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.FlushMode;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;

import java.math.BigDecimal;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The runtime side of countercache for a Hibernate application: exact reads and the in-process workers.
 *
 * <pre>{@code
 * long now = CounterCaches.exact(em, Article.class, "totalPublicComments", article.getId());
 * Map<Long, Long> many = CounterCaches.exact(em, Article.class, "totalPublicComments", ids);
 * }</pre>
 */
public final class CounterCaches {

    private CounterCaches() {
    }

    /**
     * A counter's exact value: the column plus the deltas not yet rolled up, read in the caller's transaction, so it
     * includes the caller's own uncommitted writes (pending changes of the persistence context are flushed first,
     * as before a query, unless the flush mode is COMMIT or MANUAL).
     *
     * @throws CounterCacheException when no row has this id, or the field is not a counter
     */
    public static long exact(EntityManager em, Class<?> entity, String field, Object id) {
        return exactDecimal(em, entity, field, id).longValueExact();
    }

    /** The exact values of one counter for many entities, in one query; ids of rows that do not exist are absent. */
    public static <K> Map<K, Long> exact(EntityManager em, Class<?> entity, String field, Collection<K> ids) {
        Map<K, Long> values = new java.util.LinkedHashMap<>();
        exactDecimal(em, entity, field, ids).forEach((k, v) -> values.put(k, v.longValueExact()));
        return values;
    }

    /**
     * The exact value of a {@code BigDecimal} sum (or of any counter, as a BigDecimal); otherwise as
     * {@link #exact(EntityManager, Class, String, Object)}.
     */
    public static BigDecimal exactDecimal(EntityManager em, Class<?> entity, String field, Object id) {
        BigDecimal value = exactDecimal(em, entity, field, List.of(id)).get(id);
        if (value == null) {
            throw new CounterCacheException(entity.getSimpleName() + " with id " + id + " does not exist");
        }
        return value;
    }

    /**
     * The exact values of one count or sum for many entities, in one query, as BigDecimals. For a counter per bucket
     * or of an entity with a two-column identifier, the ids are the entity's ({@code @IdClass} or {@code @EmbeddedId}
     * instances), and a bucket whose row the rollup has yet to make is there too: 0 and what is pending for it.
     */
    public static <K> Map<K, BigDecimal> exactDecimal(EntityManager em, Class<?> entity, String field, Collection<K> ids) {
        return read(em, entity, field, (c, counter) -> {
            if (counter.bucket() == null && counter.pair() == null) {
                return ExactReads.readDecimal(c, counter, ids);
            }
            EntityPersister persister = em.unwrap(Session.class).getSessionFactory().unwrap(SessionFactoryImplementor.class)
                    .getMappingMetamodel().getEntityDescriptor(entity);
            Map<java.util.UUID, List<K>> byKey = PackedKeys.of(em.unwrap(SharedSessionContractImplementor.class), c,
                    persister, counter, ids);
            Map<K, BigDecimal> values = new java.util.LinkedHashMap<>();
            ExactReads.readDecimal(c, counter, byKey.keySet()).forEach((k, v) -> byKey.get(k).forEach(id -> values.put(id, v)));
            return values;
        });
    }

    /**
     * The exact value of a min or max ({@code @CounterCache(max = ...)}), as the field's type: read from the source by
     * the counter's index in the caller's transaction, so it includes the caller's own writes; null when no row counts.
     *
     * <pre>{@code Instant last = CounterCaches.exactExtreme(em, Article.class, "lastCommentAt", id, Instant.class);}</pre>
     *
     * @throws CounterCacheException when no row has this id, or the field is not a min or max counter
     */
    public static <T> T exactExtreme(EntityManager em, Class<?> entity, String field, Object id, Class<T> type) {
        Map<Object, T> values = read(em, entity, field, (c, counter) -> {
            if (counter.extreme() == null) {
                throw new CounterCacheException(entity.getSimpleName() + "." + field + " is not a min or max; read it"
                        + " with exact or exactDecimal");
            }
            return ExactReads.readExtreme(c, counter, List.of(id), type);
        });
        if (!values.containsKey(id)) {
            throw new CounterCacheException(entity.getSimpleName() + " with id " + id + " does not exist");
        }
        return values.get(id);
    }

    private static <K, V> Map<K, V> read(EntityManager em, Class<?> entity, String field, Reader<K, V> reader) {
        Session session = em.unwrap(Session.class);
        CounterCacheService runtime = runtime(session.getSessionFactory());
        String entityName = session.getSessionFactory().unwrap(SessionFactoryImplementor.class).getMappingMetamodel()
                .getEntityDescriptor(entity).getEntityName();
        CounterDefinition counter = runtime.counter(entityName, field);
        FlushMode mode = session.getHibernateFlushMode();
        if (session.isJoinedToTransaction() && (mode == FlushMode.AUTO || mode == FlushMode.ALWAYS)) {
            session.flush();
        }
        return session.doReturningWork(c -> reader.read(c, counter));
    }

    private interface Reader<K, V> {
        Map<K, V> read(java.sql.Connection connection, CounterDefinition counter) throws java.sql.SQLException;
    }

    /**
     * Asks a limit counter ({@code @CounterLimit}) to admit one request of {@code key}, in the entity manager's
     * transaction: a rollback takes it back. See {@link Limits#admit(java.sql.Connection, String, Object)}.
     */
    public static Limits.Admission admit(EntityManager em, String limit, Object key) {
        return em.unwrap(Session.class).doReturningWork(c -> Limits.admit(c, limit, key));
    }

    /**
     * The rollup workers running inside this factory; empty unless {@code countercache.worker.enabled=true}, and
     * empty for a unit without counters or limits. A unit with limits only has workers too: they delete past periods.
     */
    public static List<RollupWorker> workers(EntityManagerFactory factory) {
        return service(factory.unwrap(SessionFactory.class)).workers();
    }

    private static CounterCacheService runtime(SessionFactory factory) {
        CounterCacheService service = service(factory);
        if (!service.hasCounters()) {
            throw new CounterCacheException("this SessionFactory has no @CounterCache entities");
        }
        return service;
    }

    private static CounterCacheService service(SessionFactory factory) {
        SessionFactoryImplementor f = factory.unwrap(SessionFactoryImplementor.class);
        if (f.isClosed()) {
            throw new CounterCacheException("this SessionFactory is closed");
        }
        return f.getServiceRegistry().requireService(CounterCacheService.class);
    }
}
