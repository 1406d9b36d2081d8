package io.countercache.spring;

import io.countercache.CounterCacheException;
import io.countercache.hibernate.CounterCacheSettings;
import io.countercache.hibernate.CounterCaches;
import io.countercache.micrometer.RollupWorkerMeters;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/**
 * countercache for Spring Boot: the {@code countercache.*} properties become the Hibernate settings of the
 * integration, so the rollup workers run inside the application on its DataSource and start and stop with the
 * context (as the SessionFactory does); a {@code countercache} health indicator; a {@code countercache} actuator
 * endpoint; and the workers' meters on the application's MeterRegistry. Every bean backs off when the application
 * defines its own of the same name. The health indicator and the endpoint read the one DataSource, or the primary one
 * of several; with several and none primary they are left out, for the application to define on the DataSource
 * whose database holds the counters.
 */
@AutoConfiguration(before = HibernateJpaAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({CounterCaches.class, HibernatePropertiesCustomizer.class, EntityManagerFactory.class})
@EnableConfigurationProperties(CounterCacheProperties.class)
public class CounterCacheAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "counterCacheHibernatePropertiesCustomizer")
    HibernatePropertiesCustomizer counterCacheHibernatePropertiesCustomizer(CounterCacheProperties p) {
        return settings -> {
            settings.put(CounterCacheSettings.VALIDATION, p.getValidation());
            if (p.getStrategy() != null) {
                settings.put(CounterCacheSettings.STRATEGY, p.getStrategy());
            }
            CounterCacheProperties.Worker w = p.getWorker();
            settings.put(CounterCacheSettings.WORKER_ENABLED, Boolean.toString(w.isEnabled()));
            settings.put(CounterCacheSettings.WORKER_THREADS, Integer.toString(w.getThreads()));
            settings.put(CounterCacheSettings.WORKER_BATCH_SIZE, Integer.toString(w.getBatchSize()));
            settings.put(CounterCacheSettings.WORKER_POLL_INTERVAL, Long.toString(w.getPollInterval().toMillis()));
            settings.put(CounterCacheSettings.WORKER_MAX_BACKOFF, Long.toString(w.getMaxBackoff().toMillis()));
            settings.put(CounterCacheSettings.WORKER_SHUTDOWN_TIMEOUT, Long.toString(w.getShutdownTimeout().toMillis()));
            settings.put(CounterCacheSettings.CACHE_EVICT, Boolean.toString(p.isCacheEvict()));
            settings.put(CounterCacheSettings.METRICS, "false");   // bound to the application's registry below
        };
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnSingleCandidate(DataSource.class)   // with several, the application names the one counted
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "countercacheHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("countercache")
        CounterCacheHealthIndicator countercacheHealthIndicator(DataSource dataSource, CounterCacheProperties p) {
            return new CounterCacheHealthIndicator(dataSource, p.getHealth().getMaxLag());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnSingleCandidate(DataSource.class)   // with several, the application names the one counted
    static class Endpoint {

        /** {@code /actuator/countercache}, once exposed ({@code management.endpoints.web.exposure.include}). */
        @Bean
        @ConditionalOnMissingBean
        @org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint
        CounterCacheEndpoint counterCacheEndpoint(DataSource dataSource) {
            return new CounterCacheEndpoint(dataSource);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class Metrics {

        /** The meters of every in-process worker (queue depth, lag, rounds, failures), tagged by worker. */
        @Bean
        @ConditionalOnMissingBean(name = "counterCacheMeters")
        MeterBinder counterCacheMeters(ObjectProvider<EntityManagerFactory> factories) {
            return registry -> factories.orderedStream().forEach(emf -> {
                try {
                    CounterCaches.workers(emf).forEach(w -> new RollupWorkerMeters(w).bindTo(registry));
                } catch (CounterCacheException e) {
                    // a persistence unit without counters has no workers to measure
                }
            });
        }
    }
}
