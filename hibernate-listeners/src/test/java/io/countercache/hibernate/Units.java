package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.Installation;
import io.countercache.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

import java.util.List;
import java.util.Map;

/** Persistence units of a few entity classes over a test database, as the integration tests boot them. */
final class Units {

    private Units() {
    }

    /**
     * Creates the model's tables (Hibernate's schema tool), installs its counters as the generated changelog would,
     * and boots the unit with the boot check on, so that it passes or the test fails.
     */
    static EntityManagerFactory boot(TestDatabase db, String name, List<Class<?>> model) throws Exception {
        configuration(db, name, model).property("hibernate.hbm2ddl.auto", "create")
                .property(CounterCacheSettings.VALIDATION, "none").createEntityManagerFactory().close();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(EntityModel.counters(model, Map.of())));
        }
        return configuration(db, name, model).createEntityManagerFactory();
    }

    private static HibernatePersistenceConfiguration configuration(TestDatabase db, String name, List<Class<?>> model) {
        return new HibernatePersistenceConfiguration(name).managedClasses(model.toArray(Class<?>[]::new))
                .jdbcUrl(db.jdbcUrl()).jdbcCredentials(db.user(), db.password())
                .property("hibernate.cache.use_second_level_cache", "false");
    }
}
