package io.countercache.example.boot;

import io.countercache.hibernate.CounterCaches;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JPA test slice against PostgreSQL gets the starter too: the {@code countercache.*} properties reach Hibernate,
 * so the worker runs as in the application. Without the starter in the slice, no worker ran and counters never moved.
 */
@DataJpaTest
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
class ForumDataJpaIT {

    private static final TestDatabase DB = TestPostgres.newDatabase(ForumDataJpaIT.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        ForumTests.database(registry, DB);
    }

    @Autowired
    EntityManagerFactory emf;

    @Test
    void theStartersWorkerRunsInAJpaSlice() {
        assertThat(CounterCaches.workers(emf)).singleElement().satisfies(w -> assertThat(w.isRunning()).isTrue());
    }
}
