package io.countercache.hibernate;

import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose tests run on H2 (Spring PetClinic's default profile) boots with its counters declared: they
 * are ordinary columns there, written and read as the application does, with a warning that nothing counts.
 */
class HibernateOnH2Test {

    @Test
    void aUnitOnAnotherDatabaseBootsAndItsCounterColumnsAreOrdinaryOnes() {
        HibernatePersistenceConfiguration cfg = new HibernatePersistenceConfiguration("h2")
                .managedClasses(Post.class, Remark.class)
                .jdbcUrl("jdbc:h2:mem:countercache;DB_CLOSE_DELAY=-1").jdbcCredentials("sa", "")
                .property("hibernate.hbm2ddl.auto", "create-drop");
        try (EntityManagerFactory emf = cfg.createEntityManagerFactory()) {
            long id = emf.callInTransaction(em -> {
                Post post = new Post();
                post.title = "p";
                em.persist(post);
                Remark r = new Remark();
                r.post = post;
                r.status = "visible";
                em.persist(r);
                return post;
            }).id;
            long count = emf.callInTransaction(em -> em.find(Post.class, id).remarkCount);
            assertThat(count).as("nothing counts on H2")
                    .isZero();
        }
    }
}
