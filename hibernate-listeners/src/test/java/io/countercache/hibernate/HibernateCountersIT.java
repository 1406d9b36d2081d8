package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.Installation;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import org.hibernate.StaleObjectStateException;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Counters read as entity properties, written by every kind of statement, and never overwritten by Hibernate. */
class HibernateCountersIT {

    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateCountersIT.class);
        emf = new HibernatePersistenceConfiguration("counters")
                .managedClasses(Post.class, Remark.class)
                .jdbcUrl(db.jdbcUrl()).jdbcCredentials(db.user(), db.password())
                .property("hibernate.hbm2ddl.auto", "create")
                // the tables are created by this boot, so the counters are installed after it
                .property(CounterCacheSettings.VALIDATION, "none")
                // rollups here are SQL calls, not an in-process worker that would evict the cached posts
                .property("hibernate.cache.use_second_level_cache", "false")
                .createEntityManagerFactory();
        try (java.sql.Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(EntityModel.counters(List.of(Post.class, Remark.class), Map.of())));
        }
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    private static Post newPostWithRemarks(String... statuses) {
        Post post = new Post();
        post.title = "first";
        emf.runInTransaction(em -> {
            em.persist(post);
            for (String status : statuses) {
                Remark r = new Remark();
                r.post = post;
                r.status = status;
                r.score = 5;
                em.persist(r);
            }
        });
        return post;
    }

    private static void rollup() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    private static Post load(long id) {
        EntityManager em = emf.createEntityManager();
        try {
            return em.find(Post.class, id);
        } finally {
            em.close();
        }
    }

    @Test
    void countersAreReadAsOrdinaryProperties() {
        Post post = newPostWithRemarks("visible", "visible", "hidden"), quiet = newPostWithRemarks("hidden");
        rollup();
        Post loaded = load(post.id);
        assertThat(loaded.remarkCount).isEqualTo(3);
        assertThat(loaded.visibleRemarks).isEqualTo(2);
        assertThat(loaded.totalScore).isEqualTo(15);
        assertThat(loaded.remarkedAt).as("touched by the visible remarks").isNotNull();
        assertThat(load(quiet.id).remarkedAt).as("no visible remark").isNull();
    }

    @Test
    void flushingAStaleEntityLeavesTheCounterIntact() {
        Post post = newPostWithRemarks("visible");
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            Post stale = em.find(Post.class, post.id);
            assertThat(stale.remarkCount).as("loaded before the rollup").isZero();
            rollup();                                  // raises the counter in the database to 1
            stale.title = "changed";                   // dirty the entity and flush it
            em.flush();
            em.getTransaction().commit();
        } finally {
            em.close();
        }
        assertThat(db.queryLong("SELECT remarkcount FROM \"Posts\" WHERE id = " + post.id))
                .as("counter after flushing a stale entity").isEqualTo(1);
        assertThat(load(post.id).title).isEqualTo("changed");
    }

    @Test
    void bulkJpqlAndNativeSqlAreCountedToo() {
        Post post = newPostWithRemarks("hidden", "hidden", "hidden");
        emf.runInTransaction(em -> em.createQuery("UPDATE Remark r SET r.status = 'visible' WHERE r.post.id = :id")
                .setParameter("id", post.id).executeUpdate());
        emf.runInTransaction(em -> em.createNativeQuery("DELETE FROM remark WHERE id = (SELECT min(id) FROM remark WHERE post_ref = ?)")
                .setParameter(1, post.id).executeUpdate());
        rollup();
        Post loaded = load(post.id);
        assertThat(loaded.remarkCount).isEqualTo(2);
        assertThat(loaded.visibleRemarks).isEqualTo(2);
        assertThat(loaded.totalScore).isEqualTo(10);
    }

    /** Loads a post, deletes its row from another connection, then changes the loaded post and flushes. */
    private static Throwable flushAfterItsRowIsGone(BiConsumer<EntityManager, Post> change) {
        Post post = newPostWithRemarks();
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            Post loaded = em.find(Post.class, post.id);
            db.execute("DELETE FROM \"Posts\" WHERE id = " + post.id);
            change.accept(em, loaded);
            return catchThrowable(em::flush);
        } finally {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            em.close();
        }
    }

    @Test
    void updatingATargetWhoseRowIsGoneRaisesOptimisticLockException() {
        assertThat(flushAfterItsRowIsGone((em, post) -> post.title = "changed"))
                .as("flushing an update of a post another transaction deleted")
                .isInstanceOf(OptimisticLockException.class)
                .hasCauseInstanceOf(StaleObjectStateException.class);
    }

    @Test
    void removingATargetWhoseRowIsGoneRaisesOptimisticLockException() {
        assertThat(flushAfterItsRowIsGone(EntityManager::remove))
                .as("flushing a remove of a post another transaction deleted")
                .isInstanceOf(OptimisticLockException.class)
                .hasCauseInstanceOf(StaleObjectStateException.class);
    }
}
