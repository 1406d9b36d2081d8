package io.countercache.cli;

import io.countercache.Strategy;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.Sessions;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations commands against a real PostgreSQL: status, drain, verify and repair of a counter of 100,000
 * articles over a table of 1,200,000 comments while two writers keep inserting; exit codes and messages for expected
 * failures. The rates the commands print (repair and drain) are in the test output.
 */
class CliIT {

    private static final TableName ARTICLE = new TableName("public", "article");
    private static final TableName COMMENT = new TableName("public", "comment");
    private static final CounterDefinition COMMENTS = new CounterDefinition("Article.comments", ARTICLE, "id",
            KeyType.BIGINT, "comments", "bigint", COMMENT, "article_id", null, null);

    private static final int ARTICLES = 100_000;

    private static TestDatabase db;

    /** A million comments before the install (its recount counts them), and 200,000 after it, queued for drain. */
    @BeforeAll
    static void populated() throws Exception {
        db = TestPostgres.newDatabase(CliIT.class);
        db.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article);"
                + "INSERT INTO article SELECT g FROM generate_series(1, " + ARTICLES + ") g;"
                + "INSERT INTO comment (article_id) SELECT 1 + g % " + ARTICLES + " FROM generate_series(1, 1000000) g;"
                + "CREATE INDEX ON comment (article_id); ANALYZE article, comment");
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(COMMENTS)));
        }
        // 200,000 more comments in 2,000 statements of 100, each row for another article: 200,000 queued deltas
        db.execute("DO $$ BEGIN FOR i IN 0..1999 LOOP INSERT INTO comment (article_id)"
                + " SELECT 1 + (i * 100 + g) * 7919 % " + ARTICLES + " FROM generate_series(1, 100) g; END LOOP; END $$");
        Run drained = cli("drain");
        System.out.println("CliIT drain: " + drained.out());
        assertThat(drained.out()).contains("drained 200,000 deltas");
    }

    private record Run(int exit, String out) {
    }

    private static Run cli(String... args) {
        return cli(db, args);
    }

    private static Run cli(TestDatabase db, String... args) {
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
    void verifyFindsDriftAndRepairFixesItOnlineWhileWritersWrite() throws Exception {
        assertThat(cli("verify").exit()).as("exact after the install").isZero();
        db.execute("UPDATE article SET comments = comments + 7 WHERE id % 20 = 3");
        Run drifted = cli("verify", "--counter", "public.article.comments");
        assertThat(drifted.exit()).isOne();
        long exact3 = db.queryLong("SELECT count(*) FROM comment WHERE article_id = 3");
        assertThat(drifted.out()).contains("public.article.comments: drifted (key, stored, pending, exact):")
                .contains("  3\t" + (exact3 + 7) + "\t0\t" + exact3).contains("20+ drifted");
        assertThat(cli("verify", "--sample", "0").exit()).as("a sample of none would call every counter exact")
                .isEqualTo(2);

        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong written = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            writers.add(new Thread(() -> {
                try (Connection c = db.dataSource().getConnection();
                     PreparedStatement insert = c.prepareStatement("INSERT INTO comment (article_id) VALUES (?), (?)")) {
                    while (writing.get()) {
                        long n = written.addAndGet(2);
                        insert.setLong(1, 1 + n * 7919 % ARTICLES);
                        insert.setLong(2, 1 + (n + 1) * 7919 % ARTICLES);
                        insert.execute();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        writers.forEach(Thread::start);
        Run repaired = cli("repair", "--batch-size", "5000");
        writing.set(false);
        for (Thread writer : writers) {
            writer.join();
        }
        System.out.println("CliIT repair of 1,200,000 comments under " + written.get() + " concurrent inserts: " + repaired.out());

        assertThat(repaired.exit()).isZero();
        assertThat(repaired.out()).contains("public.article.comments: 5,000 targets corrected of 100,000 checked");
        assertThat(written.get()).as("inserts while the repair ran").isPositive();
        assertThat(cli("drain").exit()).isZero();
        assertThat(cli("verify").exit()).as("exact after the repair").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM article a WHERE a.comments <>"
                + " (SELECT count(*) FROM comment c WHERE c.article_id = a.id)")).isZero();
        assertThat(db.queryLong("SELECT sum(comments) FROM article")).isEqualTo(1_200_000 + written.get());
    }

    /**
     * repair steps through a recount that a rollup worker steps through too (recount_next, between its rounds). A step
     * while the worker's batch is open waits for it, and once the worker has run the job to its end, repair finds no
     * job and stops; a recount_step there would request the job again and recount from the first key.
     */
    @Test
    void repairStopsWhereAWorkerRanTheRecountToItsEnd() throws Exception {
        TestDatabase small = TestPostgres.newDatabase(CliIT.class);
        small.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article);"
                + "CREATE INDEX ON comment (article_id); INSERT INTO article SELECT g FROM generate_series(1, 50) g;"
                + "INSERT INTO comment (article_id) SELECT 1 + g % 50 FROM generate_series(1, 2000) g");
        int id;
        try (Connection c = small.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(COMMENTS)));
            id = (Integer) Database.counters(c, null).get(0)[0];
        }
        String step = Repair.STEP.replaceFirst("\\?", "" + id).replaceFirst("\\?", "10");
        try (Sessions s = new Sessions(small.dataSource())) {
            Sessions.Session repair = s.open("repair"), worker = s.open("worker");
            repair.run("SELECT countercache.request_recount(" + id + ")");
            assertThat(repair.run(step)).as("repair's first batch").containsExactly(List.of("f", "10", "0"));
            worker.run("BEGIN; SELECT * FROM countercache.recount_next(1000)");   // the other 40, to the job's end
            Sessions.Step next = repair.start(step);
            s.awaitWaiting(repair);
            worker.run("COMMIT");
            assertThat(next.await()).as("a step after the worker ran the job to its end").isEmpty();
        }
        assertThat(small.queryLong("SELECT count(*) FROM countercache.recount_job")).as("jobs left").isZero();
    }

    /**
     * verify and repair of a count of distinct values and a max, whose drift is not a difference of sums: a distinct
     * count is off when a value's kept count is (its column may still be right), a max when its column is.
     */
    @Test
    void verifyAndRepairSeeADistinctCountAndAMax() throws Exception {
        TestDatabase small = TestPostgres.newDatabase(CliIT.class);
        small.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article, author int);"
                + "CREATE INDEX ON comment (article_id, id);"
                + "INSERT INTO article SELECT g FROM generate_series(1, 50) g;"
                + "INSERT INTO comment (article_id, author) SELECT 1 + g % 50, g % 7 FROM generate_series(1, 2000) g");
        CounterDefinition authors = new CounterDefinition("Article.authors", ARTICLE, "id", KeyType.BIGINT, "authors",
                "bigint", COMMENT, "article_id", null, null, Strategy.QUEUE, 0, null, null, "author");
        CounterDefinition latest = new CounterDefinition("Article.latest", ARTICLE, "id", KeyType.BIGINT, "latest",
                "bigint", COMMENT, "article_id", null, null, Strategy.QUEUE, 0, null,
                new CounterDefinition.Extreme("max", "id"));
        try (Connection c = small.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(authors, latest)));
        }
        assertThat(cli(small, "verify").exit()).as("exact after the install").isZero();

        small.execute("UPDATE article SET latest = 1 WHERE id <= 3;"
                + " UPDATE countercache.distinct_value SET n = n + 1 WHERE target_id = 4 AND value = '2'");
        Run drifted = cli(small, "verify");
        assertThat(drifted.exit()).isOne();
        assertThat(drifted.out()).contains("public.article.latest: drifted").contains("public.article.authors: drifted");

        assertThat(cli(small, "repair").exit()).isZero();
        assertThat(cli(small, "drain").exit()).isZero();
        assertThat(cli(small, "verify").exit()).as("exact after the repair").isZero();
        assertThat(small.queryLong("SELECT count(*) FROM article a WHERE a.latest IS DISTINCT FROM (SELECT max(c.id)"
                + " FROM comment c WHERE c.article_id = a.id) OR a.authors <> (SELECT count(DISTINCT c.author)"
                + " FROM comment c WHERE c.article_id = a.id)")).isZero();
    }

    /**
     * A drain whose deltas wait for a target row another transaction holds tries again, then stops and says so, with
     * exit code 1, also while writers queue deltas it can apply; once the row is free, a drain applies them. It once
     * stopped at the first round that applied nothing and reported success (and, with writers going, never stopped).
     */
    @Test
    void aDrainWhoseDeltasWaitForABusyRowSaysSoAndFailsThenAnotherAppliesThem() throws Exception {
        TestDatabase small = twoArticles();
        small.execute("INSERT INTO comment (article_id) VALUES (1), (2), (2)");   // one queued delta per article
        try (Connection holder = small.dataSource().getConnection(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("SELECT FROM article WHERE id = 1 FOR UPDATE");
            Run waiting = cli(small, "drain");
            assertThat(waiting.exit()).isOne();
            assertThat(waiting.out()).contains("drained 1 deltas").contains("deltas queued before the drain began"
                    + " still wait after " + Drain.PATIENCE + " more tries");
            // and while writers queue more, which each try applies: it gives up all the same
            Thread writer = new Thread(() -> {
                for (int i = 0; i < 60; i++) {
                    small.execute("INSERT INTO comment (article_id) VALUES (2)");
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            writer.start();
            Run writing = cli(small, "drain");
            writer.join();
            assertThat(writing.exit()).isOne();
            assertThat(writing.out()).contains("still wait after");
            holder.commit();
        }
        Run drained = cli(small, "drain");
        assertThat(drained.exit()).isZero();
        assertThat(drained.out()).doesNotContain("still wait");
        assertThat(small.queryRows("SELECT id, comments FROM article ORDER BY id"))
                .containsExactly(List.of("1", "1"), List.of("2", "62"));
    }

    /**
     * A drain in batches smaller than what waits in the queue of values and in the slots applies all of it: it once
     * stopped after the first round, which had emptied the queue, and reported success.
     */
    @Test
    void aDrainAppliesEveryValueAndSlotQueuedBeforeItInBatchesSmallerThanThem() throws Exception {
        TestDatabase small = TestPostgres.newDatabase(CliIT.class);
        small.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article, author int);"
                + "CREATE INDEX ON comment (article_id, id); INSERT INTO article SELECT g FROM generate_series(1, 50) g");
        CounterDefinition authors = new CounterDefinition("Article.authors", ARTICLE, "id", KeyType.BIGINT, "authors",
                "bigint", COMMENT, "article_id", null, null, Strategy.QUEUE, 0, null, null, "author");
        CounterDefinition slotted = new CounterDefinition("Article.slotted", ARTICLE, "id", KeyType.BIGINT, "slotted",
                "bigint", COMMENT, "article_id", null, null, Strategy.SLOTTED, 4, null, null, null);
        try (Connection c = small.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(authors, slotted)));
        }
        small.execute("INSERT INTO comment (article_id, author) SELECT 1 + g % 50, g FROM generate_series(1, 200) g");
        assertThat(small.queryLong("SELECT count(*) FROM countercache.distinct_delta")).as("values queued")
                .isGreaterThan(30);
        assertThat(small.queryLong("SELECT count(*) FROM countercache.slot WHERE n <> 0")).as("slots holding amounts")
                .isGreaterThan(30);
        Run drained = cli(small, "drain", "--batch-size", "10");
        assertThat(drained.exit()).as(drained.out()).isZero();
        assertThat(small.queryLong("SELECT count(*) FROM article a WHERE a.authors <> (SELECT count(DISTINCT c.author)"
                + " FROM comment c WHERE c.article_id = a.id) OR a.slotted <> (SELECT count(*) FROM comment c"
                + " WHERE c.article_id = a.id)"))
                .as("articles whose columns differ from a recount after the drain").isZero();
    }

    /**
     * Sums a target refused (a CHECK constraint) fail drain, verify and status, each saying what to do, until a repair
     * after the fix puts them back: verify once called such a counter exact, since the dead letters are netted out.
     */
    @Test
    void deadLettersFailDrainVerifyAndStatusUntilARepairAfterTheFix() throws Exception {
        TestDatabase small = twoArticles();
        small.execute("ALTER TABLE article ADD CONSTRAINT few CHECK (comments <= 2);"
                + " INSERT INTO comment (article_id) VALUES (1), (1), (1), (2)");
        Run drained = cli(small, "drain");
        assertThat(drained.exit()).as(drained.out()).isOne();
        assertThat(drained.out()).contains("1 sums went to the dead letters");
        Run verified = cli(small, "verify");
        assertThat(verified.exit()).isOne();
        assertThat(verified.out()).contains("public.article.comments: exact, and 1 sums in the dead letters");
        Run status = cli(small, "status");
        assertThat(status.exit()).isOne();
        assertThat(status.out()).contains("problem: 1 sums of public.article.comments are in the dead letters");

        small.execute("ALTER TABLE article DROP CONSTRAINT few");
        assertThat(cli(small, "repair").exit()).isZero();
        assertThat(cli(small, "verify").exit()).isZero();
        assertThat(cli(small, "status").exit()).isZero();
        assertThat(small.queryRows("SELECT id, comments FROM article ORDER BY id"))
                .containsExactly(List.of("1", "3"), List.of("2", "1"));
    }

    /** A database of two articles, whose comments the counter of COMMENTS counts. */
    private static TestDatabase twoArticles() throws Exception {
        TestDatabase small = TestPostgres.newDatabase(CliIT.class);
        small.execute("CREATE TABLE article (id bigint PRIMARY KEY);"
                + "CREATE TABLE comment (id bigserial PRIMARY KEY, article_id bigint REFERENCES article);"
                + "CREATE INDEX ON comment (article_id); INSERT INTO article VALUES (1), (2)");
        try (Connection c = small.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(COMMENTS)));
        }
        return small;
    }

    @Test
    void theJarSaysTheVersionTheBuildGaveIt() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(javaBin, "-jar", "target/countercache-cli.jar", "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).isZero();
        assertThat(out).as("the version of this build, from the jar's manifest")
                .isEqualTo("countercache " + System.getProperty("countercache.version"));
    }

    @Test
    void generateWritesFlywayMigrationsWithFlyway(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assertThat(Main.run(new String[]{"generate", "--flyway", dir.toString(), "--changelog-name", "stories",
                "io.countercache.cli.fixture.Story", "io.countercache.cli.fixture.Note"})).isZero();
        assertThat(dir.resolve("R__countercache_stories.sql")).content().contains("\"declared_by\": \"Story.notes\"");
        assertThat(dir.resolve("R__countercache_stories_recount.sql")).content()
                .contains("CALL countercache.run_recounts();");
        assertThat(dir.resolve("R__countercache_stories_recount.sql.conf")).content()
                .contains("executeInTransaction=false");
    }

    /**
     * The application's own configuration on the classpath names its tables, as at boot: here Spring Boot's
     * application.properties puts them in a schema of its own, and a --setting goes over it.
     */
    @Test
    void generateReadsTheApplicationsNamingSettingsFromTheClasspath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Files.writeString(dir.resolve("application.properties"),
                "spring.jpa.properties.hibernate.default_schema=newsroom\n");
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        try (var classpath = new java.net.URLClassLoader(new java.net.URL[]{dir.toUri().toURL()}, before)) {
            thread.setContextClassLoader(classpath);
            java.nio.file.Path read = dir.resolve("read.sql");
            java.nio.file.Path over = dir.resolve("over.sql");
            assertThat(Main.run("generate", "--out", read.toString(), "io.countercache.cli.fixture.Story",
                    "io.countercache.cli.fixture.Note")).isZero();
            assertThat(Main.run("generate", "--out", over.toString(), "--setting", "hibernate.default_schema=archive",
                    "io.countercache.cli.fixture.Story", "io.countercache.cli.fixture.Note")).isZero();
            assertThat(read).content().contains("\"source_schema\": \"newsroom\"").doesNotContain("\"public\"");
            assertThat(over).content().contains("\"source_schema\": \"archive\"").doesNotContain("newsroom");
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /** The jar published for {@code java -jar}: alone in a directory, with nothing beside it. */
    @Test
    void theAllJarRunsAlone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path built;
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("target"))) {
            built = files.filter(f -> f.getFileName().toString().matches("countercache-cli-.*-all\\.jar")).findFirst()
                    .orElseThrow();
        }
        java.nio.file.Path jar = java.nio.file.Files.copy(built, dir.resolve(built.getFileName()));
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(javaBin, "-jar", jar.toString(), "status", "--jdbc-url", db.jdbcUrl(),
                "--username", db.user(), "--password", db.password()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("public.article.comments");
    }

    @Test
    void statusShowsEachCounterAsTextOrJson() {
        Run json = cli("status", "--json");
        assertThat(json.exit()).isZero();
        assertThat(json.out()).contains("\"counter\":\"public.article.comments\"").contains("\"triggers\":\"installed\"");
        assertThat(cli("status").out()).contains("public.article.comments").contains("installed")
                .doesNotContain("warning:");
    }

    /** An event trigger of the DDL guard not in place is a warning with its fix, and no problem of a counter. */
    @Test
    void statusWarnsOfAGuardNotInPlace() throws Exception {
        db.execute("ALTER EVENT TRIGGER countercache_drop_guard DISABLE");
        try {
            Run warned = cli("status");
            assertThat(warned.exit()).isZero();
            assertThat(warned.out()).contains("warning: the event trigger countercache_drop_guard of countercache's DDL"
                    + " guard is disabled")
                    .contains("fix: a superuser runs ALTER EVENT TRIGGER countercache_drop_guard");
            assertThat(cli("status", "--json").out())
                    .contains("{\"warning\":\"the event trigger countercache_drop_guard");
        } finally {
            db.execute("ALTER EVENT TRIGGER countercache_drop_guard ENABLE");
        }
    }

    @Test
    void statusReportsACounterTheSchemaNoLongerFits() throws Exception {
        db.executeInTransaction("SET LOCAL countercache.ddl_guard = off; ALTER TABLE comment RENAME article_id TO post_id");
        try {
            Run broken = cli("status");
            assertThat(broken.exit()).isOne();
            assertThat(broken.out()).contains("problem: @CounterCache on Article.comments: foreign key column"
                    + " public.comment.article_id is missing, the key it points at is bigint");
            assertThat(cli("status", "--json").out()).contains("{\"counter\":\"public.article.comments\",\"problem\":");
        } finally {
            db.executeInTransaction("SET LOCAL countercache.ddl_guard = off; ALTER TABLE comment RENAME post_id TO article_id");
        }
        assertThat(cli("status").exit()).isZero();
    }

    @Test
    void aPasswordInTheUrlIsMaskedInMessages() {
        assertThat(Database.shown("jdbc:postgresql://db/app?user=x&password=s3cret&ssl=true"))
                .isEqualTo("jdbc:postgresql://db/app?user=x&password=***&ssl=true");
        assertThat(Database.shown("No suitable driver found for jdbc:pg://db/app?sslpassword=k3y&PASSWORD=s3cret x"))
                .isEqualTo("No suitable driver found for jdbc:pg://db/app?sslpassword=***&PASSWORD=*** x");
    }

    @Test
    void expectedFailuresExitTwoWithAMessage() {
        assertThat(Main.run("verify", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/nope")).isEqualTo(2);
        assertThat(cli("verify", "--counter", "public.article.nope").exit()).isEqualTo(2);
        assertThat(Main.run("status", "--jdbc-url", "")).isEqualTo(2);
    }
}
