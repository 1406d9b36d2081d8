package io.countercache.cli;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations commands against a real PostgreSQL: status, drain, verify and repair of a counter over a table of
 * 300,000 rows while a writer keeps inserting; exit codes and messages for expected failures.
 */
class CliIT {

    private static final TableName ARTICLE = new TableName("public", "article");
    private static final CounterDefinition COMMENTS = new CounterDefinition("Article.comments", ARTICLE, "id",
            KeyType.BIGINT, "comments", "bigint", new TableName("public", "comment"), "article_id", null, null);

    private static TestDatabase db;

    @BeforeAll
    static void populated() throws Exception {
        db = TestPostgres.newDatabase(CliIT.class);
        db.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article);"
                + "CREATE INDEX ON comment (article_id);"
                + "INSERT INTO article SELECT g FROM generate_series(1, 1000) g;"
                + "INSERT INTO comment (article_id) SELECT 1 + g % 1000 FROM generate_series(1, 300000) g");
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(COMMENTS)));
        }
    }

    private record Run(int exit, String out) {
    }

    private static Run cli(String... args) {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            String[] all = new String[args.length + 6];
            System.arraycopy(args, 0, all, 0, args.length);
            System.arraycopy(new String[]{"--jdbc-url", db.jdbcUrl(), "--username", db.user(), "--password", db.password()},
                    0, all, args.length, 6);
            return new Run(Main.run(all), captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
        }
    }

    @Test
    void verifyFindsDriftAndRepairFixesItOnlineWhileAWriterWrites() throws Exception {
        assertThat(cli("verify").exit()).as("exact after the install").isZero();
        db.execute("UPDATE article SET comments = comments + 7 WHERE id IN (3, 5)");
        Run drifted = cli("verify", "--counter", "public.article.comments");
        assertThat(drifted.exit()).isOne();
        assertThat(drifted.out()).contains("public.article.comments: drifted (key, stored, pending, exact):")
                .contains("  3\t307\t0\t300").contains("2 drifted");

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong written = new AtomicLong();
        Thread writer = new Thread(() -> {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                while (writing.get()) {
                    st.execute("INSERT INTO comment (article_id) VALUES (" + (1 + written.incrementAndGet() % 1000) + ")");
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        writer.start();
        Run repaired = cli("repair", "--batch-size", "100");
        writing.set(false);
        writer.join();

        assertThat(repaired.exit()).isZero();
        assertThat(repaired.out()).contains("public.article.comments: 2 targets corrected");
        assertThat(written.get()).as("inserts while the repair ran").isPositive();
        assertThat(cli("drain").exit()).isZero();
        assertThat(cli("verify").exit()).as("exact after the repair").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM article a WHERE a.comments <>"
                + " (SELECT count(*) FROM comment c WHERE c.article_id = a.id)")).isZero();
    }

    @Test
    void statusShowsEachCounterAsTextOrJson() {
        Run json = cli("status", "--json");
        assertThat(json.exit()).isZero();
        assertThat(json.out()).contains("\"counter\":\"public.article.comments\"").contains("\"triggers\":\"installed\"");
        assertThat(cli("status").out()).contains("public.article.comments").contains("installed");
    }

    @Test
    void expectedFailuresExitTwoWithAMessage() {
        assertThat(Main.run("verify", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/nope")).isEqualTo(2);
        assertThat(cli("verify", "--counter", "public.article.nope").exit()).isEqualTo(2);
        assertThat(Main.run("status", "--jdbc-url", "")).isEqualTo(2);
    }
}
