package io.countercache.hibernate.internal;

import io.countercache.CounterCacheException;
import io.countercache.RollupListener;
import io.countercache.RollupWorker;
import io.countercache.micrometer.RollupWorkerMeters;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.OptionalDependencies;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.service.Service;
import org.hibernate.service.spi.SessionFactoryServiceContributor;
import org.hibernate.service.spi.SessionFactoryServiceRegistryBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What countercache keeps for one SessionFactory, in the factory's service registry: its counters by entity and
 * field, and its in-process workers, which start when the factory is created and stop when it closes.
 * {@link Contributor} (registered through {@code META-INF/services}) adds an empty one to every factory; the
 * integrator fills it when the unit has counters.
 */
public final class CounterCacheService implements Service, SessionFactoryObserver {

    private static final Logger log = LoggerFactory.getLogger(CounterCacheService.class);

    private final Map<String, CounterDefinition> byField = new HashMap<>();
    private final List<RollupWorker> workers = new ArrayList<>();
    private final List<AutoCloseable> meters = new ArrayList<>();
    private transient SessionFactoryImplementor factory;
    private transient Settings settings;
    private transient Supplier<HibernateConnections> connections;
    private transient CacheSoftLock cache;

    /** Adds an empty service to each SessionFactory's registry. */
    public static final class Contributor implements SessionFactoryServiceContributor {
        @Override
        public void contribute(SessionFactoryServiceRegistryBuilder builder) {
            builder.addService(CounterCacheService.class, new CounterCacheService());
        }
    }

    /** Fills the service with the unit's counters; the workers start once the factory has been created. */
    void init(SessionFactoryImplementor factory, List<CounterModel.Declared> counters, Settings settings,
              Supplier<HibernateConnections> connections) {
        this.factory = factory;
        this.settings = settings;
        this.connections = connections;
        Map<Integer, CacheSoftLock.Target> targets = new HashMap<>();
        for (CounterModel.Declared c : counters) {
            if (c.property() == null) {   // a level of a path counter: no field reads it, no cached entity holds it
                continue;
            }
            byField.put(c.entity().getEntityName() + "#" + c.property().getName(), c.definition());
            targets.put(c.definition().id(), new CacheSoftLock.Target(c.entity().getEntityName(), c.definition().keyType(),
                    c.definition().bucket() != null || c.definition().pair() != null));
        }
        this.cache = new CacheSoftLock(factory, targets);
        factory.addObserver(this);
    }

    /** Whether the unit declares any counter; if not, the integrator left this service empty. */
    public boolean hasCounters() {
        return !byField.isEmpty();
    }

    /** The counter that {@code field} of {@code entityName} declares, or an error that lists the ones it has. */
    public CounterDefinition counter(String entityName, String field) {
        CounterDefinition d = byField.get(entityName + "#" + field);
        if (d == null) {
            throw new CounterCacheException(entityName + "." + field + " has no @CounterCache; the counters of "
                    + entityName + " are " + byField.keySet().stream().filter(k -> k.startsWith(entityName + "#"))
                    .map(k -> k.substring(entityName.length() + 1)).sorted().toList());
        }
        return d;
    }

    public List<RollupWorker> workers() {
        return List.copyOf(workers);
    }

    @Override
    public void sessionFactoryCreated(SessionFactory sessionFactory) {
        if (!settings.workerEnabled()) {
            return;
        }
        RollupListener listener = settings.cacheEvict() && cache.needed() ? cache : null;
        int threads = settings.workerThreads();
        for (int i = 1; i <= threads; i++) {
            RollupWorker worker = RollupWorker.builder(connections.get())
                    .name(workerName(i, threads))
                    .batchSize(settings.batchSize())
                    .lanes(Math.min(threads, RollupWorker.MAX_LANES))   // the unit's workers apply disjoint targets
                    .pollInterval(settings.pollInterval())
                    .maxBackoff(settings.maxBackoff())
                    .shutdownTimeout(settings.shutdownTimeout())
                    .listener(listener)
                    .build();
            workers.add(worker.start());
            if (settings.metrics() && OptionalDependencies.MICROMETER) {
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

    /** {@code countercache-rollup}, plus the persistence unit's name and the worker's number when there are several. */
    private String workerName(int i, int threads) {
        String unit = factory.getName();
        return "countercache-rollup" + (unit == null || unit.isBlank() ? "" : "-" + unit) + (threads == 1 ? "" : "-" + i);
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
