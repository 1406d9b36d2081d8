package io.countercache.hibernate.internal;

import io.countercache.CatalogCheck;
import io.countercache.CounterCacheException;
import io.countercache.hibernate.CounterCacheSettings;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.LimitDefinition;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.PostgreSQLDialect;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.PersistentClass;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Hooks countercache into every SessionFactory (registered through {@code META-INF/services}):
 * <ul>
 *   <li>checks the {@code @CounterCache} declarations, failing the boot with every problem listed;</li>
 *   <li>makes each counter property read-only to Hibernate and re-read after each insert and update, so that a flush
 *       of a stale entity cannot overwrite what the rollup applied;</li>
 *   <li>compares the declarations with the database ({@value CounterCacheSettings#VALIDATION});</li>
 *   <li>runs the in-process workers when {@value CounterCacheSettings#WORKER_ENABLED} is true.</li>
 * </ul>
 */
public final class CounterCacheIntegrator implements Integrator {

    private static final Logger log = LoggerFactory.getLogger(CounterCacheIntegrator.class);

    /** Settings that change physical names, so the regenerate command must carry them. */
    private static final List<String> NAMING_SETTINGS = List.of("hibernate.physical_naming_strategy",
            "hibernate.implicit_naming_strategy", "hibernate.default_schema", "hibernate.globally_quoted_identifiers");

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor sessionFactory) {
        List<CounterModel.Declared> counters = CounterModel.read(metadata);
        List<LimitDefinition> limits = CounterModel.limits(metadata);
        if (counters.isEmpty() && limits.isEmpty()) {
            log.debug("countercache: no @CounterCache or @CounterLimit in this persistence unit, nothing to do");
            return;
        }
        Dialect dialect = sessionFactory.getJdbcServices().getDialect();
        if (!(dialect instanceof PostgreSQLDialect)) {
            // a test profile on H2, say: the declarations are checked above, but nothing counts here
            log.warn("countercache: the database is not PostgreSQL (Hibernate's dialect is {}), so nothing keeps the {}"
                    + " counters of this persistence unit: their columns are ordinary ones here, with no triggers, no"
                    + " rollup workers and no check against the database. Test counting against PostgreSQL (an"
                    + " embedded one or Testcontainers; see the README, \"Testing an application\")",
                    dialect.getClass().getSimpleName(), counters.size());
            return;
        }
        for (CounterModel.Declared c : counters) {
            if (c.property() == null) {   // a level of a path counter: a column Hibernate does not map
                continue;
            }
            c.property().setInsertable(false);
            c.property().setUpdatable(false);
            c.property().setValueGeneratorCreator(CounterColumnGenerator.CREATOR);
        }
        Map<String, Object> properties = sessionFactory.getProperties();
        Settings settings = Settings.of(properties);
        Supplier<HibernateConnections> connections = () -> connections(sessionFactory);
        validate(metadata, counters, limits, settings.validation(), properties, connections);
        sessionFactory.getServiceRegistry().requireService(CounterCacheService.class)
                .init(sessionFactory, counters, settings, connections);
        log.info("countercache: {} counters, columns read-only to Hibernate: {}", counters.size(),
                counters.stream().map(c -> c.definition().declaredBy()).toList());
    }

    /** Hibernate's own connections; looked up only when needed, since a multi-tenant unit has no single provider. */
    private static HibernateConnections connections(SessionFactoryImplementor sessionFactory) {
        ConnectionProvider provider = sessionFactory.getServiceRegistry().getService(ConnectionProvider.class);
        if (provider == null) {
            throw new CounterCacheException("countercache: this SessionFactory has no ConnectionProvider (multi-tenant?);"
                    + " set " + CounterCacheSettings.VALIDATION + "=none and " + CounterCacheSettings.WORKER_ENABLED
                    + "=false, and run RollupWorker on a DataSource of your own");
        }
        return new HibernateConnections(provider);
    }

    private static void validate(Metadata metadata, List<CounterModel.Declared> counters, List<LimitDefinition> limits,
                                 String mode, Map<String, Object> settings,
                                 Supplier<HibernateConnections> connectionSource) {
        if (mode.equals("none")) {
            return;
        }
        List<CounterDefinition> declared = counters.stream().map(CounterModel.Declared::definition).toList();
        List<String> problems;
        HibernateConnections connections = connectionSource.get();
        try {
            Connection c = connections.open();
            try {
                problems = new ArrayList<>(CatalogCheck.differences(c, declared, CounterModel.mappedTables(metadata)));
                problems.addAll(CatalogCheck.limitDifferences(c, limits));
            } finally {
                connections.release(c);
            }
        } catch (SQLException e) {
            throw new CounterCacheException("countercache: cannot compare the counters with the database ("
                    + e.getMessage() + "); set " + CounterCacheSettings.VALIDATION + "=none to boot without the check", e);
        }
        if (problems.isEmpty()) {
            return;
        }
        String message = "countercache: the database does not count what the entities declare ("
                + CounterCacheSettings.VALIDATION + "=" + mode + "):\n  - " + String.join("\n  - ", problems)
                + "\nRegenerate the countercache changelog from the entities and apply it with Liquibase. With the"
                + " countercache Maven plugin:\n  mvn process-classes countercache:generate\nWithout it:\n  "
                + regenerateCommand(metadata, settings)
                + "\nOr set " + CounterCacheSettings.VALIDATION + "=warn to boot anyway, or none to skip this check.";
        if (mode.equals("fail")) {
            throw new CounterCacheException(message);
        }
        log.warn(message);
    }

    private static String regenerateCommand(Metadata metadata, Map<String, Object> settings) {
        String naming = NAMING_SETTINGS.stream().filter(k -> settings.get(k) != null)
                .map(k -> " --setting " + k + "=" + settings.get(k)).collect(Collectors.joining());
        String entities = metadata.getEntityBindings().stream().map(PersistentClass::getClassName).sorted()
                .collect(Collectors.joining(" "));
        return "java -cp <application classpath with countercache-cli> io.countercache.cli.Main generate"
                + " --out <your countercache changelog>.sql" + naming + " " + entities;
    }
}
