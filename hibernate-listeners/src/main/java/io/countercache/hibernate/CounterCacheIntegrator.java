package io.countercache.hibernate;

import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Hooks countercache into every SessionFactory (registered through {@code META-INF/services}): checks the
 * {@code @CounterCache} declarations when Hibernate boots, failing the boot with every problem listed, and marks
 * each counter property neither insertable nor updatable, so that Hibernate never writes a counter column: a
 * flush of a stale entity cannot overwrite what the rollup applied.
 */
public final class CounterCacheIntegrator implements Integrator {

    private static final Logger log = LoggerFactory.getLogger(CounterCacheIntegrator.class);

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor sessionFactory) {
        List<CounterModel.Declared> counters = CounterModel.read(metadata);
        if (counters.isEmpty()) {
            log.debug("countercache: no @CounterCache in this persistence unit, nothing to do");
            return;
        }
        for (CounterModel.Declared c : counters) {
            c.property().setInsertable(false);
            c.property().setUpdatable(false);
        }
        log.info("countercache: {} counters, columns read-only to Hibernate: {}", counters.size(),
                counters.stream().map(c -> c.definition().declaredBy()).toList());
    }
}
