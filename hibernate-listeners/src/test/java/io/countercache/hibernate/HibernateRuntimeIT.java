package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.CounterCacheException;
import io.countercache.RollupWorker;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import io.micrometer.core.instrument.Metrics;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Boot validation, the in-process worker, second-level cache eviction and exact reads, against real PostgreSQL. */
class HibernateRuntimeIT {

    private static final List<Class<?>> ENTITIES = List.of(Post.class, Remark.class);

    /** A database with the entities' tables (made by Hibernate) and the counters installed from the definitions. */
    private static TestDatabase blog(List<CounterDefinition> installed) throws SQLException {
        TestDatabase db = TestPostgres.newDatabase(HibernateRuntimeIT.class);
        boot(db, Map.of("hibernate.hbm2ddl.auto", "create", CounterCacheSettings.VALIDATION, "none")).close();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(installed));
        }
        return db;
    }

    private static List<CounterDefinition> declared() {
        return EntityModel.counters(ENTITIES, Map.of());
    }

    private static EntityManagerFactory boot(TestDatabase db, Map<String, Object> settings, Class<?>... entities) {
        HibernatePersistenceConfiguration cfg = new HibernatePersistenceConfiguration("runtime")
                .managedClasses(entities.length == 0 ? ENTITIES.toArray(Class<?>[]::new) : entities)
                .jdbcUrl(db.jdbcUrl()).jdbcCredentials(db.user(), db.password());
        settings.forEach(cfg::property);
        return cfg.createEntityManagerFactory();
    }

    private static long newPost(EntityManagerFactory emf, String... remarkStatuses) {
        return emf.callInTransaction(em -> {
            Post post = new Post();
            post.title = "p";
            em.persist(post);
            for (String status : remarkStatuses) {
                Remark r = new Remark();
                r.post = post;
                r.status = status;
                em.persist(r);
            }
            return post;
        }).id;
    }

    private static long cachedRemarkCount(EntityManagerFactory emf, long id) {
        return emf.callInTransaction(em -> em.find(Post.class, id).remarkCount);
    }

    private static long exactInOwnTransaction(EntityManagerFactory emf, String field, long id) {
        return emf.callInTransaction(em -> CounterCaches.exact(em, Post.class, field, id));
    }

    @Test
    void theBootFailsOnAChangedWhereNamingTheFieldBothConditionsAndTheFix() throws Exception {
        List<CounterDefinition> installed = declared().stream()
                .map(d -> d.declaredBy().equals("Post.visibleRemarks") ? new CounterDefinition(d.declaredBy(),
                        d.target(), d.targetKey(), d.keyType(), d.column(), d.columnType(), d.source(), d.sourceFk(),
                        "status = 'shown'", d.sumColumn()) : d)
                .toList();
        TestDatabase db = blog(installed);

        assertThatThrownBy(() -> boot(db, Map.of()))
                .rootCause()
                .isInstanceOf(CounterCacheException.class)
                .hasMessageContaining("countercache: the database does not count what the entities declare"
                        + " (countercache.validation=fail):\n  - Post.visibleRemarks: where is \"status = 'visible'\""
                        + " in the entity but \"status = 'shown'\" in the database")
                .hasMessageContaining("With the countercache Maven plugin:\n  mvn process-classes countercache:generate")
                .hasMessageContaining("io.countercache.cli.Main generate --out <your countercache changelog>.sql"
                        + " io.countercache.hibernate.Post io.countercache.hibernate.Remark")
                .hasMessageContaining("countercache.validation=warn");

        boot(db, Map.of(CounterCacheSettings.VALIDATION, "warn")).close();   // boots, and says so in the log
        db.execute("DROP TRIGGER countercache_delete ON remark;"
                + "DELETE FROM countercache.counter WHERE name = 'public.Posts.totalscore';"
                + "CREATE OR REPLACE FUNCTION countercache.schema_digest() RETURNS text LANGUAGE sql AS $$ SELECT '0ld' $$");
        assertThatThrownBy(() -> boot(db, Map.of()))
                .rootCause()
                .hasMessageContaining("Post.totalScore: not installed (the catalog has no counter public.Posts.totalscore)")
                .hasMessageContaining("@CounterCache on Post.remarkCount: capture triggers of public.remark:"
                        + " countercache_delete is missing")
                .hasMessageContaining("the countercache schema in the database is version " + Installation.schemaVersion()
                        + " (functions 0ld), this library's is version " + Installation.schemaVersion());
    }

    @Test
    void anInstalledDatabaseBootsAndAUnitWithoutCountersIsLeftAlone() throws Exception {
        TestDatabase db = blog(declared());
        boot(db, Map.of()).close();

        TestDatabase empty = TestPostgres.newDatabase(HibernateRuntimeIT.class);
        EntityManagerFactory plain = boot(empty, Map.of("hibernate.hbm2ddl.auto", "create"), Plain.class);
        try {
            assertThat(CounterCaches.workers(plain)).isEmpty();
            assertThatThrownBy(() -> CounterCaches.exact(plain.createEntityManager(), Plain.class, "id", 1L))
                    .hasMessageContaining("no @CounterCache entities");
            assertThat(empty.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = 'countercache'")).isZero();
        } finally {
            plain.close();
        }
    }

    @Test
    void theInProcessWorkerRunsWithTheSessionFactoryAndKeepsTheSecondLevelCacheFresh() throws Exception {
        TestDatabase db = blog(declared());
        Map<String, Object> settings = new HashMap<>();
        settings.put(CounterCacheSettings.WORKER_ENABLED, "true");
        settings.put(CounterCacheSettings.WORKER_POLL_INTERVAL, "20");
        settings.put("hibernate.cache.use_second_level_cache", "true");
        settings.put("hibernate.cache.region.factory_class", "jcache");
        settings.put("hibernate.javax.cache.provider", "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider");
        settings.put("hibernate.javax.cache.missing_cache_strategy", "create");
        EntityManagerFactory emf = boot(db, settings);
        List<RollupWorker> workers;
        try {
            workers = CounterCaches.workers(emf);
            assertThat(workers).singleElement().satisfies(w -> assertThat(w.isRunning()).isTrue());
            assertThat(Metrics.globalRegistry.find("countercache.queue.depth").tag("worker", workers.get(0).name()).gauge())
                    .as("the worker's queue gauge in Micrometer's global registry").isNotNull();

            long id = newPost(emf, "visible", "hidden");
            // a failing eviction would leave the value cached at insert (0) there for good, and these waits time out
            until("a find to show the two remarks", () -> cachedRemarkCount(emf, id) == 2);

            // a write Hibernate does not see: only the rollup's eviction can refresh the cached post
            db.execute("INSERT INTO remark (id, post_ref, status, score) VALUES (nextval('remark_seq'), " + id + ", 'visible', 0)");
            until("a find to show the third remark", () -> cachedRemarkCount(emf, id) == 3);

            // a stale entity saved after a rollup: Hibernate re-reads the counter, so the cache gets the fresh value
            EntityManager stale = emf.createEntityManager();
            try {
                stale.getTransaction().begin();
                Post held = stale.find(Post.class, id);
                db.execute("INSERT INTO remark (id, post_ref, status, score) VALUES (nextval('remark_seq'), " + id + ", 'visible', 0)");
                until("the fourth remark rolled up", () -> db.queryLong("SELECT remarkcount FROM \"Posts\" WHERE id = " + id) == 4);
                held.title = "renamed";
                stale.getTransaction().commit();
                assertThat(held.remarkCount).as("counter re-read by the update").isEqualTo(4);
            } finally {
                stale.close();
            }
            assertThat(cachedRemarkCount(emf, id)).as("the cached post after the update").isEqualTo(4);
        } finally {
            emf.close();
        }
        assertThat(workers.get(0).isRunning()).as("worker after the SessionFactory closed").isFalse();
        assertThat(Metrics.globalRegistry.find("countercache.queue.depth").gauges()).as("gauges after close").isEmpty();
        assertThatThrownBy(() -> CounterCaches.workers(emf)).isInstanceOf(RuntimeException.class);
    }

    @Test
    void anExactReadSeesTheCallersUncommittedInsertAndNothingOfOthers() throws Exception {
        TestDatabase db = blog(declared());
        EntityManagerFactory emf = boot(db, Map.of());
        try {
            long first = newPost(emf, "visible", "hidden");
            long second = newPost(emf, "visible");
            assertThat(db.queryLong("SELECT visible_remarks FROM \"Posts\" WHERE id = " + first)).as("column before any rollup").isZero();

            EntityManager em = emf.createEntityManager();
            try {
                em.getTransaction().begin();
                Remark r = new Remark();
                r.post = em.find(Post.class, first);
                r.status = "visible";
                em.persist(r);                                   // not flushed yet: the exact read flushes it
                assertThat(CounterCaches.exact(em, Post.class, "visibleRemarks", first)).isEqualTo(2);
                assertThat(CounterCaches.exact(em, Post.class, "remarkCount", List.of(first, second, -1L)))
                        .containsExactly(Map.entry(first, 3L), Map.entry(second, 1L));
                assertThat(exactInOwnTransaction(emf, "visibleRemarks", first))
                        .as("another transaction's exact read").isEqualTo(1);
                assertThatThrownBy(() -> CounterCaches.exact(em, Post.class, "title", first))
                        .hasMessage("io.countercache.hibernate.Post.title has no @CounterCache; the counters of"
                                + " io.countercache.hibernate.Post are [remarkCount, totalScore, visibleRemarks]");
                em.getTransaction().rollback();
            } finally {
                em.close();
            }
            while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
                // roll everything up: the exact read now equals the column
            }
            assertThat(exactInOwnTransaction(emf, "visibleRemarks", first))
                    .isEqualTo(db.queryLong("SELECT visible_remarks FROM \"Posts\" WHERE id = " + first)).isEqualTo(1);
        } finally {
            emf.close();
        }
    }
}
