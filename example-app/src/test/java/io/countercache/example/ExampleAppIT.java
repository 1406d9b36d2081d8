package io.countercache.example;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The main job, shortened, against the test server: it must find every counter equal to its recount. */
class ExampleAppIT {

    @Test
    void theExampleEndsWithEveryCounterExact() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(ExampleAppIT.class);
        String[] connection = {"--jdbc-url", db.jdbcUrl(), "--username", db.user(), "--password", db.password()};
        assertThat(ExampleApp.run(concat(new String[]{"migrate"}, connection))).as("migrate").isZero();
        assertThat(ExampleApp.run(concat(connection, new String[]{"--transactions", "800", "--threads", "3"})))
                .as("exit status of the example").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM databasechangelog WHERE exectype = 'EXECUTED'"))
                .as("changesets applied once, the second run found them applied").isEqualTo(14);
        assertThat(db.queryRows("SELECT id FROM databasechangelog WHERE exectype = 'RERAN'"))
                .as("changesets that run on every update").containsExactly(java.util.List.of("countercache-recount"));
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
