package io.countercache.flyway;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rendered migrations applied by Flyway's own API against real PostgreSQL: an install over existing rows (the
 * recount counts them), a changed and a removed counter, two sets in one database, a declaration the check
 * refuses before anything is installed, and a later migration that renames a counted column: refused by the DDL
 * guard, then applied as the README says.
 */
class FlywayIT {

    private static final TableName ARTICLE = new TableName("public", "article");
    private static final TableName COMMENT = new TableName("public", "comment");
    private static final TableName SHOP = new TableName("public", "shop");
    private static final TableName ORDER = new TableName("public", "shop_order");

    private static final String TABLES = """
            CREATE TABLE article (id bigint PRIMARY KEY, comments bigint NOT NULL DEFAULT 0,
                                  public_comments bigint NOT NULL DEFAULT 0);
            CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article, status text NOT NULL);
            CREATE TABLE shop (id bigint PRIMARY KEY, orders bigint NOT NULL DEFAULT 0);
            CREATE TABLE shop_order (id bigserial PRIMARY KEY, shop_id bigint REFERENCES shop);
            INSERT INTO article (id) SELECT generate_series(1, 3);
            INSERT INTO comment (article_id, status) SELECT 1 + g % 3, CASE WHEN g % 2 = 0 THEN 'public' ELSE 'private' END
              FROM generate_series(1, 100) g;
            INSERT INTO shop (id) VALUES (1);
            """;

    @TempDir
    Path migrations;

    private static CounterDefinition comments(String condition) {
        return new CounterDefinition("Article.comments", ARTICLE, "id", KeyType.BIGINT, "comments", "bigint", COMMENT,
                "article_id", null, null);
    }

    private static CounterDefinition publicComments(String condition) {
        return new CounterDefinition("Article.publicComments", ARTICLE, "id", KeyType.BIGINT, "public_comments", "bigint",
                COMMENT, "article_id", condition, null);
    }

    private static final CounterDefinition ORDERS = new CounterDefinition("Shop.orders", SHOP, "id", KeyType.BIGINT,
            "orders", "bigint", ORDER, "shop_id", null, null);

    /** Writes a set's files into the migrations directory, replacing that set's previous ones. */
    private void write(String set, List<CounterDefinition> counters) throws Exception {
        for (Map.Entry<String, String> f : MigrationWriter.render(set, counters, List.of(), null).entrySet()) {
            Files.writeString(migrations.resolve(f.getKey()), f.getValue());
        }
    }

    private void migrate(TestDatabase db) {
        Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password())
                .locations("filesystem:" + migrations).load().migrate();
    }

    private static void drain(TestDatabase db) {
        while (db.queryLong("SELECT countercache.rollup(10000)") > 0) {
            // until a round finds nothing
        }
    }

    private static void assertExact(TestDatabase db) {
        drain(db);
        assertThat(db.queryRows("SELECT a.id, a.comments, a.public_comments FROM article a WHERE a.comments <>"
                + " (SELECT count(*) FROM comment c WHERE c.article_id = a.id) OR a.public_comments <>"
                + " (SELECT count(*) FROM comment c WHERE c.article_id = a.id AND c.status = 'public')"))
                .as("articles whose counters differ from a recount").isEmpty();
        assertThat(db.queryRows("SELECT s.id FROM shop s WHERE s.orders <>"
                + " (SELECT count(*) FROM shop_order o WHERE o.shop_id = s.id)")).as("shops that differ").isEmpty();
    }

    @Test
    void migrationsInstallCountChangeAndRemoveCountersOfTwoSets() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(FlywayIT.class);
        Files.writeString(migrations.resolve("V1__tables.sql"), TABLES);
        write("blog", List.of(comments(null), publicComments("status = 'public'")));
        write("shop", List.of(ORDERS));
        migrate(db);
        assertThat(db.queryLong("SELECT sum(comments) FROM article")).as("existing rows, counted by the recount")
                .isEqualTo(100);
        db.execute("INSERT INTO comment (article_id, status) VALUES (1, 'public'), (2, 'private');"
                + "INSERT INTO shop_order (shop_id) SELECT 1 FROM generate_series(1, 5)");
        assertExact(db);
        assertThat(db.queryLong("SELECT orders FROM shop")).isEqualTo(5);

        // a changed condition: the set's file changes, Flyway runs it and the recount again
        write("blog", List.of(comments(null), publicComments("status <> 'private'")));
        db.execute("INSERT INTO comment (article_id, status) VALUES (3, 'draft')");
        migrate(db);
        db.execute("UPDATE comment SET status = 'public' WHERE status = 'draft'");
        assertExact(db);
        assertThat(db.queryRows("SELECT c.condition FROM countercache.counters() c WHERE c.declared_by = 'Article.publicComments'"))
                .containsExactly(List.of("status <> 'private'"));

        // a removed counter goes; the other set's counter stays and counts
        write("blog", List.of(comments(null)));
        migrate(db);
        assertThat(db.queryRows("SELECT c.declared_by FROM countercache.counters() c ORDER BY 1"))
                .containsExactly(List.of("Article.comments"), List.of("Shop.orders"));
        db.execute("INSERT INTO shop_order (shop_id) VALUES (1)");
        assertExact(db);
    }

    /** What the README says: the guard off at the top of the versioned migration, the regenerated set with it. */
    @Test
    void aLaterMigrationThatRenamesACountedColumnIsRefusedUnlessItSwitchesTheGuardOffBeforeTheRegeneratedSet()
            throws Exception {
        TestDatabase db = TestPostgres.newDatabase(FlywayIT.class);
        Files.writeString(migrations.resolve("V1__tables.sql"), TABLES);
        write("blog", List.of(comments(null), publicComments("status = 'public'")));
        migrate(db);

        Path rename = migrations.resolve("V2__rename_status.sql");
        Files.writeString(rename, "ALTER TABLE comment RENAME COLUMN status TO visibility;\n");
        assertThatThrownBy(() -> migrate(db)).hasStackTraceContaining("countercache: ALTER TABLE would break 1 counter:")
                .hasStackTraceContaining("@CounterCache on Article.publicComments: where = \"status = 'public'\"")
                .hasStackTraceContaining("SET LOCAL countercache.ddl_guard = off");
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.columns WHERE table_name = 'comment'"
                + " AND column_name = 'status'")).as("the refused migration, rolled back").isOne();

        Files.writeString(rename, "SET LOCAL countercache.ddl_guard = off;\n"
                + "ALTER TABLE comment RENAME COLUMN status TO visibility;\n");
        write("blog", List.of(comments(null), publicComments("visibility = 'public'")));
        migrate(db);
        db.execute("INSERT INTO comment (article_id, visibility) VALUES (1, 'public');"
                + " UPDATE comment SET visibility = 'public' WHERE id % 4 = 1");
        drain(db);
        assertThat(db.queryRows("SELECT a.id FROM article a WHERE a.public_comments <>"
                + " (SELECT count(*) FROM comment c WHERE c.article_id = a.id AND c.visibility = 'public')"))
                .as("articles whose public comments differ from a recount").isEmpty();
        assertThatThrownBy(() -> db.execute("ALTER TABLE comment DROP COLUMN visibility"))
                .as("the guard, on again for the next migration").hasMessageContaining("@CounterCache on Article.publicComments");
    }

    @Test
    void aRefusedDeclarationInstallsNothing() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(FlywayIT.class);
        Files.writeString(migrations.resolve("V1__tables.sql"), TABLES);
        write("blog", List.of(comments(null), publicComments("no_such_column = 'public'")));
        assertThatThrownBy(() -> migrate(db)).hasStackTraceContaining("@CounterCache on Article.publicComments")
                .hasStackTraceContaining("no_such_column");
        assertThat(db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = 'countercache'"))
                .as("the countercache schema, rolled back with the check").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM article")).as("the versioned migration stays").isEqualTo(3);
    }
}
