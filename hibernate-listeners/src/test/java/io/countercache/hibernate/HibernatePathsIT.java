package io.countercache.hibernate;

import io.countercache.CatalogCheck;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A path counter and a BigDecimal sum declared on entities, written and read through Hibernate. */
class HibernatePathsIT {

    private static final List<Class<?>> ENTITIES = List.of(Forum.class, Topic.class, Reply.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;
    private static List<CounterDefinition> counters;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernatePathsIT.class);
        emf = new HibernatePersistenceConfiguration("paths")
                .managedClasses(ENTITIES)
                .jdbcUrl(db.jdbcUrl()).jdbcCredentials(db.user(), db.password())
                .property("hibernate.hbm2ddl.auto", "create")
                .property(CounterCacheSettings.VALIDATION, "none")   // the tables come from this boot
                .createEntityManagerFactory();
        counters = EntityModel.counters(ENTITIES, Map.of());
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(counters));
        }
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    private static void rollup() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    private static Forum load(long id) {
        EntityManager em = emf.createEntityManager();
        try {
            return em.find(Forum.class, id);
        } finally {
            em.close();
        }
    }

    @Test
    void repliesCountForTheForumOfTheirTopicAndMoveWithIt() throws Exception {
        Forum first = new Forum(), second = new Forum();
        Topic topic = new Topic();
        emf.runInTransaction(em -> {
            em.persist(first);
            em.persist(second);
            topic.forum = first;
            em.persist(topic);
            for (String tip : new String[] {"1.10", "2.25", null}) {
                Reply r = new Reply();
                r.topic = topic;
                r.tip = tip == null ? null : new BigDecimal(tip);
                em.persist(r);
            }
        });
        emf.runInTransaction(em -> {
            assertThat(CounterCaches.exact(em, Forum.class, "replies", first.id)).isEqualTo(3);
            assertThat(CounterCaches.exactDecimal(em, Forum.class, "tips", first.id)).isEqualTo(new BigDecimal("3.35"));
        });
        rollup();
        assertThat(load(first.id).replies).isEqualTo(3);
        assertThat(load(first.id).tips).isEqualTo(new BigDecimal("3.35"));
        assertThat(load(first.id).averageTip()).as("3.35 / 3").isEqualTo(new BigDecimal("1.12"));
        assertThat(load(second.id).averageTip()).as("no reply yet").isNull();

        emf.runInTransaction(em -> em.find(Topic.class, topic.id).forum = em.find(Forum.class, second.id));
        rollup();
        assertThat(load(first.id).replies).isZero();
        assertThat(load(first.id).tips).isEqualTo(new BigDecimal("0.00"));
        assertThat(load(second.id).replies).isEqualTo(3);
        assertThat(load(second.id).tips).isEqualTo(new BigDecimal("3.35"));

        emf.runInTransaction(em -> em.createQuery("UPDATE Reply r SET r.tip = r.tip + 0.01 WHERE r.tip IS NOT NULL")
                .executeUpdate());
        emf.runInTransaction(em -> {
            em.createQuery("DELETE FROM Reply r WHERE r.tip IS NULL").executeUpdate();
            assertThat(CounterCaches.exactDecimal(em, Forum.class, "tips", second.id)).isEqualTo(new BigDecimal("3.37"));
        });
        rollup();
        assertThat(load(second.id).replies).isEqualTo(2);
        assertThat(load(second.id).tips).isEqualTo(new BigDecimal("3.37"));
        assertThat(load(second.id).averageTip()).as("3.37 / 2, half to even").isEqualTo(new BigDecimal("1.68"));
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, counters, Set.of())).isEmpty();
        }
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }
}
