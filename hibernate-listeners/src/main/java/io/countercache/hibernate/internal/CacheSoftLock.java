package io.countercache.hibernate.internal;

import io.countercache.RollupListener;
import io.countercache.spi.KeyType;
import org.hibernate.cache.spi.access.EntityDataAccess;
import org.hibernate.cache.spi.access.SoftLock;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Before a round commits, soft-locks the cached copies of the rows it changed, the way Hibernate locks an entity it
 * updates, and releases them once the round has ended. While locked, readers go to the database and nothing may put
 * the entry back; on release, the cache refuses any copy read before it (a load that started earlier, or an insert or
 * update by a transaction that saw the row before this round). With {@code read-write} caching the cache therefore
 * never serves a counter older than the last round; {@code nonstrict-read-write} evicts on release, with that
 * strategy's usual small window.
 */
final class CacheSoftLock implements RollupListener {

    private static final Logger log = LoggerFactory.getLogger(CacheSoftLock.class);

    /**
     * Where a counter's rows live in the entity model; the rows of a bucket entity, or of an entity keyed by two
     * columns, are named by a key the library packs, not by their identifier, so a round locks its whole region (as
     * Hibernate does around a bulk update).
     */
    record Target(String entityName, KeyType keyType, boolean packed) {
    }

    private final SessionFactoryImplementor factory;
    private final Map<Integer, Target> byCounterId;

    CacheSoftLock(SessionFactoryImplementor factory, Map<Integer, Target> byCounterId) {
        this.factory = factory;
        this.byCounterId = Map.copyOf(byCounterId);
    }

    /** Whether any target entity is in the second-level cache; if none is, rounds need no listener. */
    boolean needed() {
        return byCounterId.values().stream().map(Target::entityName).distinct()
                .anyMatch(name -> factory.getMappingMetamodel().getEntityDescriptor(name).canWriteToCache());
    }

    @Override
    public AfterRound applied(Map<Integer, List<Object>> touched) {
        List<Runnable> releases = new ArrayList<>();
        SharedSessionContractImplementor session = factory.openTemporarySession();
        AfterRound release = committed -> {
            try {
                for (Runnable r : releases) {
                    try {
                        r.run();
                    } catch (RuntimeException e) {
                        log.warn("countercache: releasing a second-level cache lock failed: {}", e.toString());
                    }
                }
            } finally {
                session.close();
            }
        };
        try {
            touched.forEach((counterId, keys) -> lock(session, byCounterId.get(counterId), keys, releases));
        } catch (RuntimeException e) {
            release.ended(false);
            throw e;
        }
        return release;
    }

    private void lock(SharedSessionContractImplementor session, Target target, List<Object> keys, List<Runnable> releases) {
        EntityPersister persister = target == null ? null
                : factory.getMappingMetamodel().getEntityDescriptor(target.entityName());
        if (persister == null || !persister.canWriteToCache()) {
            return;
        }
        EntityDataAccess access = persister.getCacheAccessStrategy();
        if (target.packed()) {
            SoftLock region = access.lockRegion();
            releases.add(() -> access.unlockRegion(region));
            return;
        }
        boolean versioned = persister.isVersioned();
        for (Object key : keys) {
            Object id = target.keyType() == KeyType.INTEGER ? (Object) ((Long) key).intValue() : key;
            Object cacheKey = access.generateCacheKey(id, persister, factory, null);
            SoftLock lock = access.lockItem(session, cacheKey, null);
            releases.add(() -> {
                access.unlockItem(session, cacheKey, lock);
                if (versioned) {
                    // the rollup does not bump @Version, so the released lock would refuse the next load's put (same
                    // version) until it times out: drop it so the entity is cached again
                    access.evict(cacheKey);
                }
            });
        }
    }
}
