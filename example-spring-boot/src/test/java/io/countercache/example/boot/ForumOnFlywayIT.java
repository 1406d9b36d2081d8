package io.countercache.example.boot;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Flyway variant: Spring Boot's Flyway auto-configuration applies db/migration, the schema and the repeatable
 * migrations the Maven plugin generated (format flyway), and the same tests pass as with Liquibase.
 */
@ActiveProfiles("flyway")
class ForumOnFlywayIT extends ForumTests {

    private static final TestDatabase DB = TestPostgres.newDatabase(ForumOnFlywayIT.class);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        database(registry, DB);
    }

    @Test
    void flywayAppliedTheSchemaThenTheCountersThenTheirRecount() {
        assertThat(jdbc.queryForList("SELECT script FROM flyway_schema_history WHERE success ORDER BY installed_rank",
                String.class)).containsExactly("V1__forum_schema.sql", "R__countercache_io_countercache_example_boot.sql",
                "R__countercache_io_countercache_example_boot_recount.sql");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.tables WHERE table_name ="
                + " 'databasechangelog'", Long.class)).as("Liquibase stayed off").isZero();
        assertThat(jdbc.queryForObject("SELECT DISTINCT changelog FROM countercache.counter", String.class)).isEqualTo("io.countercache.example.boot");
    }
}
