package io.countercache.example.boot;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The example as it ships: Spring Boot's Liquibase applies the schema and the generated changelog. */
class ForumIT extends ForumTests {

    private static final TestDatabase DB = TestPostgres.newDatabase(ForumIT.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        database(registry, DB);
    }
}
