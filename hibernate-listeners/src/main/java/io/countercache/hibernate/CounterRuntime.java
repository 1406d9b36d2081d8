package io.countercache.hibernate;

import io.countercache.CounterCacheException;
import io.countercache.RollupListener;
import io.countercache.RollupWorker;
import io.countercache.micrometer.RollupWorkerMeters;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.cache.spi.access.EntityDataAccess;
import org.hibernate.cache.spi.access.SoftLock;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What countercache keeps for one SessionFactory: its counters by entity and field, and its in-process workers,
 * which start when the factory is created and stop when it closes.
 */
final class CounterRuntime implements SessionFactoryObserver {

    private static final Logger log = LoggerFactory.getLogger(CounterRuntime.class);

    /** Where a counter's rows live in the entity model: for exact reads and cache eviction. */
    private record Target(String entityName, KeyType keyType) {
    }

    private final transient SessionFactoryImplementor factory;
    private final transient Supplier<HibernateConnections> connections;
    private final Map<String, Object> settings;
    private final Map<String, CounterDefinition> byField = new HashMap<>();
    private final Map<Integer, Target> byId = new HashMap<>();
    private final transient List<RollupWorker> workers = new ArrayList<>();
    private final transient List<AutoCloseable> meters = new ArrayList<>();

    CounterRuntime(SessionFactoryImplementor factory, List<CounterModel.Declared> counters, Map<String, Object> settings,
                   Supplier<HibernateConnections> connections) {
        this.factory = factory;
        this.settings = settings;
        this.connections = connections;
        for (CounterModel.Declared c : counters) {
            byField.put(c.entity().getEntityName() + "#" + c.property().getName(), c.definition());
            byId.put(c.definition().id(), new Target(c.entity().getEntityName(), c.definition().keyType()));
        }
    }

    /** The counter that {@code field} of {@code entityName} declares, or an error that lists the ones it has. */
    CounterDefinition counter(String entityName, String field) {
        CounterDefinition d = byField.get(entityName + "#" + field);
        if (d == null) {
            throw new CounterCacheException(entityName + "." + field + " has no @CounterCache; the counters of "
                    + entityName + " are " + byField.keySet().stream().filter(k -> k.startsWith(entityName + "#"))
                    .map(k -> k.substring(entityName.length() + 1)).sorted().toList());
        }
        return d;
    }

    List<RollupWorker> workers() {
        return List.copyOf(workers);
    }

    @Override
    public void sessionFactoryCreated(SessionFactory sessionFactory) {
        if (!bool(CounterCacheSettings.WORKER_ENABLED, false)) {
            return;
        }
        int threads = number(CounterCacheSettings.WORKER_THREADS, 1);
        RollupListener cache = bool(CounterCacheSettings.CACHE_EVICT, true) && cachesTargets() ? this::lockCached : null;
        for (int i = 1; i <= threads; i++) {
            RollupWorker worker = RollupWorker.builder(connections.get())
                    .name(workerName(i, threads))
                    .batchSize(number(CounterCacheSettings.WORKER_BATCH_SIZE, 10_000))
                    .pollInterval(Duration.ofMillis(number(CounterCacheSettings.WORKER_POLL_INTERVAL, 200)))
                    .maxBackoff(Duration.ofMillis(number(CounterCacheSettings.WORKER_MAX_BACKOFF, 30_000)))
                    .shutdownTimeout(Duration.ofMillis(number(CounterCacheSettings.WORKER_SHUTDOWN_TIMEOUT, 30_000)))
                    .listener(cache)
                    .build();
            workers.add(worker.start());
            if (bool(CounterCacheSettings.METRICS, true) && micrometerPresent()) {
                meters.add(Micrometer.bind(worker));
            }
        }
    }

    @Override
    public void sessionFactoryClosing(SessionFactory sessionFactory) {
        RollupWorker.closeAll(workers);
        for (AutoCloseable m : meters) {
            try {
                m.close();
            } catch (Exception e) {
                log.debug("countercache: removing meters failed", e);
            }
        }
        meters.clear();
    }

    @Override
    public void sessionFactoryClosed(SessionFactory sessionFactory) {
        CounterCaches.unregister(factory);
    }

    /**
     * Before a round commits, soft-lock the cached copies of the rows it changed, the way Hibernate locks an entity it
     * updates; release them once the round has ended. While locked, readers go to the database and nothing may put
     * the entry back; on release, the cache refuses any copy read before it (a load that started earlier, or an
     * insert or update by a transaction that saw the row before this round). With {@code read-write} caching the
     * cache therefore never serves a counter older than the last round; {@code nonstrict-read-write} evicts on
     * release, with that strategy's usual small window.
     */
    private RollupListener.AfterRound lockCached(Map<Integer, List<Object>> touched) {
        List<Runnable> releases = new ArrayList<>();
        SharedSessionContractImplementor session = factory.openTemporarySession();
        RollupListener.AfterRound release = committed -> {
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
            touched.forEach((counterId, keys) -> {
                Target target = byId.get(counterId);
                EntityPersister persister = target == null ? null
                        : factory.getMappingMetamodel().getEntityDescriptor(target.entityName());
                if (persister == null || !persister.canWriteToCache()) {
                    return;
                }
                EntityDataAccess access = persister.getCacheAccessStrategy();
                boolean versioned = persister.isVersioned();
                for (Object key : keys) {
                    Object id = target.keyType() == KeyType.INTEGER ? (Object) ((Long) key).intValue() : key;
                    Object cacheKey = access.generateCacheKey(id, persister, factory, null);
                    SoftLock lock = access.lockItem(session, cacheKey, null);
                    releases.add(() -> {
                        access.unlockItem(session, cacheKey, lock);
                        if (versioned) {
                            // the rollup does not bump @Version, so the released lock would refuse the next load's
                            // put (same version) until it times out: drop it so the entity is cached again
                            access.evict(cacheKey);
                        }
                    });
                }
            });
        } catch (RuntimeException e) {
            release.ended(false);
            throw e;
        }
        return release;
    }

    /** {@code countercache-rollup}, plus the persistence unit's name and the worker's number when there are several. */
    private String workerName(int i, int threads) {
        String unit = factory.getName();
        return "countercache-rollup" + (unit == null || unit.isBlank() ? "" : "-" + unit) + (threads == 1 ? "" : "-" + i);
    }

    /** Whether any target entity is in the second-level cache; if none is, rounds need no listener. */
    private boolean cachesTargets() {
        return byId.values().stream().map(Target::entityName).distinct()
                .anyMatch(name -> factory.getMappingMetamodel().getEntityDescriptor(name).canWriteToCache());
    }

    private boolean bool(String key, boolean otherwise) {
        Object v = settings.get(key);
        if (v == null) {
            return otherwise;
        }
        String s = v.toString().trim().toLowerCase(Locale.ROOT);
        if (!s.equals("true") && !s.equals("false")) {
            throw new CounterCacheException("setting " + key + " = \"" + v + "\" must be true or false");
        }
        return Boolean.parseBoolean(s);
    }

    private int number(String key, int otherwise) {
        Object v = settings.get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(v.toString().trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new CounterCacheException("setting " + key + " = \"" + v + "\" must be a whole number of at least 1");
    }

    private static boolean micrometerPresent() {
        try {
            Class.forName("io.micrometer.core.instrument.Metrics", false, CounterRuntime.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Loaded only when Micrometer is on the classpath. */
    private static final class Micrometer {
        static AutoCloseable bind(RollupWorker worker) {
            RollupWorkerMeters m = new RollupWorkerMeters(worker);
            m.bindTo(io.micrometer.core.instrument.Metrics.globalRegistry);
            return m;
        }
    }
}
