package io.countercache.hibernate;

import io.countercache.Limits;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.Installation;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A @CounterLimit from the entity model: checked at boot, installed by the generated units, asked through JPA; the
 * worker of a unit with limits only is listed as any other.
 */
class HibernateLimitsIT {

    private static EntityManagerFactory boot(TestDatabase db) {
        return new HibernatePersistenceConfiguration("limits").managedClasses(Customer.class)
                .jdbcUrl(db.jdbcUrl()).jdbcCredentials(db.user(), db.password())
                .property("hibernate.hbm2ddl.auto", "create")
                .property(CounterCacheSettings.WORKER_ENABLED, "true").createEntityManagerFactory();
    }

    @Test
    void aDeclaredLimitIsCheckedAtBootAndAdmitsInTheEntityManagersTransaction() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(HibernateLimitsIT.class);
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(), List.of()));
        }
        assertThatThrownBy(() -> boot(db))
                .hasStackTraceContaining("@CounterLimit(name = \"calls_per_hour\") on Customer: not installed");

        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(), EntityModel.limits(List.of(Customer.class))));
        }
        try (EntityManagerFactory emf = boot(db)) {
            assertThat(CounterCaches.workers(emf)).as("the worker that deletes past periods, seen as any other")
                    .singleElement().satisfies(w -> assertThat(w.isRunning()).isTrue());
            emf.runInTransaction(em -> {
                assertThat(CounterCaches.admit(em, "calls_per_hour", 7L).admitted()).isTrue();
                em.getTransaction().setRollbackOnly();                // taken back
            });
            List<Limits.Admission> answers = emf.callInTransaction(em -> List.of(
                    CounterCaches.admit(em, "calls_per_hour", 7L), CounterCaches.admit(em, "calls_per_hour", 7L),
                    CounterCaches.admit(em, "calls_per_hour", 7L), CounterCaches.admit(em, "calls_per_hour", 7L)));
            assertThat(answers).extracting(Limits.Admission::admitted).containsExactly(true, true, true, false);
            assertThat(answers.get(3)).extracting(Limits.Admission::admittedCount, Limits.Admission::attemptedCount,
                    Limits.Admission::limit).containsExactly(3L, 4L, 3L);
        }
    }
}
