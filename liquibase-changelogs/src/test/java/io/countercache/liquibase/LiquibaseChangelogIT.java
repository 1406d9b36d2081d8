package io.countercache.liquibase;

import io.countercache.CounterCacheException;
import io.countercache.Strategy;
import io.countercache.internal.InstallSql;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The whole life of a counter through Liquibase: added to a populated table, applied again, changed, removed. */
class LiquibaseChangelogIT {

    private static final TableName USER = new TableName("public", "blog_user");
    private static final TableName ARTICLE = new TableName("public", "blog_article");
    private static final TableName COMMENT = new TableName("public", "blog_comment");

    private static CounterDefinition articleCounter(String column, String where) {
        return new CounterDefinition("Article." + column, ARTICLE, "id", KeyType.BIGINT, column, "bigint",
                COMMENT, "article_id", where, null);
    }

    private static final CounterDefinition USER_PUBLIC = new CounterDefinition("User.totalPublicComments", USER, "id",
            KeyType.BIGINT, "total_public_comments", "bigint", COMMENT, "creator_id", "publish_status = 'public'", null);

    /** A count of distinct values and a max, each with tables of its own in the schema (the values, the index). */
    private static final CounterDefinition ARTICLE_COMMENTERS = new CounterDefinition("Article.commenters", ARTICLE,
            "id", KeyType.BIGINT, "commenters", "bigint", COMMENT, "article_id", "publish_status = 'public'", null,
            Strategy.QUEUE, 0, null, null, "creator_id");
    private static final CounterDefinition ARTICLE_LATEST = new CounterDefinition("Article.latestComment", ARTICLE,
            "id", KeyType.BIGINT, "latest_comment", "bigint", COMMENT, "article_id", null, null, Strategy.QUEUE, 0, null,
            new CounterDefinition.Extreme("max", "id"));

    @TempDir
    Path dir;
    private TestDatabase db;

    @BeforeEach
    void populatedBlogWithoutCounters() {
        db = TestPostgres.newDatabase(LiquibaseChangelogIT.class);
        db.execute("""
                CREATE TABLE blog_user (id bigint PRIMARY KEY);
                CREATE TABLE blog_article (id bigint PRIMARY KEY, content text);
                CREATE TABLE blog_comment (id bigserial PRIMARY KEY, creator_id bigint REFERENCES blog_user,
                                           article_id bigint REFERENCES blog_article, publish_status text NOT NULL);
                INSERT INTO blog_user SELECT g FROM generate_series(1, 10) g;
                INSERT INTO blog_article SELECT g FROM generate_series(1, 50) g;
                INSERT INTO blog_comment (creator_id, article_id, publish_status)
                SELECT 1 + g % 10, 1 + g % 40, CASE g % 3 WHEN 0 THEN 'public' WHEN 1 THEN 'private' ELSE 'featured' END
                  FROM generate_series(1, 5000) g;
                CREATE INDEX blog_comment_article_id ON blog_comment (article_id, id);
                """);
    }

    private void apply(List<CounterDefinition> counters) throws Exception {
        Path file = dir.resolve("countercache.changelog.sql");
        Files.writeString(file, ChangelogWriter.render(counters, null));
        try (Connection c = db.dataSource().getConnection()) {
            CounterCacheLiquibase.update(c, file);
        }
    }

    private long mismatches(String column, String where) {
        return db.queryLong("SELECT count(*) FROM blog_article a WHERE a." + column + " <> (SELECT count(*) FROM"
                + " blog_comment c WHERE c.article_id = a.id AND (" + where + "))");
    }

    private long executions() {
        return db.queryLong("SELECT count(*) FROM databasechangelog");
    }

    @Test
    void aCounterAddedToAPopulatedTableStartsExactAndReapplyingIsANoOp() throws Exception {
        List<CounterDefinition> counters = List.of(articleCounter("total_comments", null),
                articleCounter("total_public_comments", "publish_status = 'public'"));
        apply(counters);
        assertThat(mismatches("total_comments", "true")).as("articles whose total differs from the recount").isZero();
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).isZero();
        assertThat(db.queryLong("SELECT sum(total_comments) FROM blog_article")).isEqualTo(5000);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("nothing queued by the install").isZero();

        long before = executions();
        String definedAt = db.queryRows("SELECT string_agg(defined_at::text, ',' ORDER BY id) FROM countercache.counter").toString();
        apply(counters);
        assertThat(executions()).as("changesets recorded after applying the same changelog again").isEqualTo(before);
        assertThat(db.queryRows("SELECT string_agg(defined_at::text, ',' ORDER BY id) FROM countercache.counter").toString())
                .isEqualTo(definedAt);
    }

    /**
     * A counter added in a later release to a table that holds others already: the table's target triggers serve it
     * too (an inserted row's initial value is taken out of the new counter as well), though the changeset that
     * rebuilds them once existed with the same table.
     */
    @Test
    void aCounterAddedLaterToATableThatHoldsOthersIsServedByItsTargetTriggers() throws Exception {
        apply(List.of(articleCounter("total_comments", null)));
        apply(List.of(articleCounter("total_comments", null),
                articleCounter("total_public_comments", "publish_status = 'public'")));
        db.execute("INSERT INTO blog_article (id, total_comments, total_public_comments) VALUES (99, 3, 5)");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT total_comments, total_public_comments FROM blog_article WHERE id = 99"))
                .as("a new article's initial values, taken out of both counters").containsExactly(List.of("0", "0"));
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).isZero();
    }

    @Test
    void changingAWhereReappliesAndRecountsOnlyWhatChanged() throws Exception {
        apply(List.of(articleCounter("total_comments", null), articleCounter("total_public_comments", "publish_status = 'public'")));
        long untouched = db.queryLong("SELECT extract(epoch FROM defined_at) * 1000000 FROM countercache.counter"
                + " WHERE name = 'public.blog_article.total_comments'");

        apply(List.of(articleCounter("total_comments", null),
                articleCounter("total_public_comments", "publish_status IN ('public', 'featured')"), USER_PUBLIC));
        assertThat(mismatches("total_public_comments", "publish_status IN ('public', 'featured')")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM blog_user u WHERE u.total_public_comments <> (SELECT count(*)"
                + " FROM blog_comment c WHERE c.creator_id = u.id AND c.publish_status = 'public')")).isZero();
        assertThat(db.queryLong("SELECT extract(epoch FROM defined_at) * 1000000 FROM countercache.counter"
                + " WHERE name = 'public.blog_article.total_comments'")).as("unchanged counter not redefined").isEqualTo(untouched);
        assertThat(db.queryRows("SELECT id FROM databasechangelog WHERE exectype = 'RERAN' ORDER BY id"))
                .as("the check, source, prune and recount changesets re-ran, and the target's, which names the changed"
                        + " counter's definition").containsExactly(List.of("countercache-check"),
                        List.of("countercache-prune"), List.of("countercache-recount"),
                        List.of("countercache-source-public.blog_comment"), List.of("countercache-target-public.blog_article"));

        // writes after the change are counted with the new condition
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 50, 'featured')");
        db.queryLong("SELECT countercache.rollup(1000)");
        assertThat(db.queryLong("SELECT total_public_comments FROM blog_article WHERE id = 50")).isEqualTo(1);
    }

    /**
     * Counters whose target key changed (the column renamed, the DDL guard off, as the README says) are served by
     * target triggers rebuilt for the new key: the target's changeset names each counter's definition hash, so it runs
     * again, after the source changesets have defined both counters anew. Two sources feed the target, so a rebuild
     * between their changesets (once made by the first one's define_counter) would meet one counter still on the old
     * key, and fail; and with the names alone in the target's changeset, nothing rebuilt it (every insert into the
     * target failed: column r.id does not exist).
     */
    @Test
    void aChangedDefinitionRebuildsTheTriggersOfItsTargetAfterEverySource() throws Exception {
        db.execute("CREATE TABLE blog_like (id bigserial PRIMARY KEY, article_id bigint REFERENCES blog_article);"
                + " INSERT INTO blog_like (article_id) SELECT 1 + g % 30 FROM generate_series(1, 300) g");
        TableName like = new TableName("public", "blog_like");
        apply(List.of(articleCounter("total_comments", null), new CounterDefinition("Article.likes", ARTICLE, "id",
                KeyType.BIGINT, "likes", "bigint", like, "article_id", null, null)));
        db.execute("BEGIN; SET LOCAL countercache.ddl_guard = off;"
                + " ALTER TABLE blog_article RENAME COLUMN id TO article_key; COMMIT");
        apply(List.of(new CounterDefinition("Article.total_comments", ARTICLE, "article_key", KeyType.BIGINT,
                "total_comments", "bigint", COMMENT, "article_id", null, null), new CounterDefinition("Article.likes",
                ARTICLE, "article_key", KeyType.BIGINT, "likes", "bigint", like, "article_id", null, null)));
        assertThat(db.queryRows("SELECT id FROM databasechangelog WHERE exectype = 'RERAN' ORDER BY id"))
                .as("the changesets that ran again: the sources' and the target's").contains(
                        List.of("countercache-source-public.blog_comment"), List.of("countercache-source-public.blog_like"),
                        List.of("countercache-target-public.blog_article"));
        db.execute("INSERT INTO blog_article (article_key, total_comments, likes) VALUES (99, 7, 7)");   // start at 0
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 99, 'private');"
                + " INSERT INTO blog_like (article_id) VALUES (99), (99)");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT total_comments, likes FROM blog_article WHERE article_key = 99"))
                .containsExactly(List.of("1", "2"));
        assertThat(db.queryLong("SELECT count(*) FROM blog_article a WHERE a.total_comments <> (SELECT count(*) FROM"
                + " blog_comment c WHERE c.article_id = a.article_key) OR a.likes <> (SELECT count(*) FROM blog_like l"
                + " WHERE l.article_id = a.article_key)")).isZero();
    }

    /**
     * An upgrade of the library rebuilds every table's triggers with its generator, though no counter changed: each
     * table's changeset names the library's digest, so its text changes with the library's SQL. The older library
     * here is this changelog with another digest, and a capture body of its own (one that counts nothing).
     */
    @Test
    void anUpgradeOfTheLibraryRebuildsTheTriggersOfEveryTable() throws Exception {
        List<CounterDefinition> counters = List.of(articleCounter("total_comments", null));
        String current = ChangelogWriter.render(counters, null);
        String builtBy = "countercache.built_by('" + InstallSql.schemaDigest() + "')";
        assertThat(current).contains(builtBy);
        Path older = dir.resolve("countercache.changelog.sql");   // the file apply() writes: one changelog, two releases
        Files.writeString(older, current.replace(builtBy, "countercache.built_by('0123456789abcdef')"));
        try (Connection c = db.dataSource().getConnection()) {
            CounterCacheLiquibase.update(c, older);
        }
        String capture = db.queryRows("SELECT t.tgfoid::regprocedure FROM pg_trigger t WHERE t.tgname = 'countercache_insert'"
                + " AND t.tgrelid = 'blog_comment'::regclass").get(0).get(0);
        db.execute("CREATE OR REPLACE FUNCTION " + capture + " RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
                + " SET search_path = pg_catalog, pg_temp AS $$ BEGIN RETURN NULL; END $$");

        apply(counters);
        assertThat(db.queryRows("SELECT id FROM databasechangelog WHERE exectype = 'RERAN' ORDER BY id"))
                .as("the changesets that ran again: the tables' and the recount, which runs every time")
                .containsExactly(List.of("countercache-recount"), List.of("countercache-source-public.blog_comment"),
                        List.of("countercache-target-public.blog_article"));
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 50, 'private')");
        db.queryLong("SELECT countercache.rollup(1000)");
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 50"))
                .as("a comment inserted after the upgrade, counted by the rebuilt capture").isEqualTo(1);
        assertThat(mismatches("total_comments", "true")).isZero();
    }

    /**
     * Each changeset's rollback, in the order Liquibase runs them (last applied first): after each one the database
     * is consistent, and after all of them nothing of the library is left but the counter columns; applying again,
     * with writes in between, ends exact.
     */
    @Test
    void everyChangesetRollsBackAndApplyingAgainEndsExact() throws Exception {
        List<CounterDefinition> counters = List.of(articleCounter("total_public_comments", "publish_status = 'public'"),
                USER_PUBLIC, ARTICLE_COMMENTERS, ARTICLE_LATEST);
        apply(counters);
        long changesets = db.queryLong("SELECT count(*) FROM databasechangelog");
        Path file = dir.resolve("countercache.changelog.sql");
        for (long left = changesets; left > 0; left--) {
            try (Connection c = db.dataSource().getConnection()) {
                CounterCacheLiquibase.rollbackCount(c, file, 1);
            }
            assertThat(db.queryLong("SELECT count(*) FROM databasechangelog")).isEqualTo(left - 1);
            // writes between rollbacks: counted by what is still installed, recounted by the next apply
            db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (2, 3, 'public')");
        }
        assertThat(db.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = 'countercache'")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'countercache%'")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.columns WHERE column_name ="
                + " 'total_public_comments'")).as("counter columns stay: dropping data is the user's call").isEqualTo(2);

        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE id % 7 = 0");
        apply(counters);
        db.execute("DELETE FROM blog_comment WHERE id % 11 = 0 OR article_id = 7");
        while (db.queryLong("SELECT countercache.rollup(10000)") > 0) {
            // until a round finds nothing
        }
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM blog_user u WHERE u.total_public_comments <> (SELECT count(*)"
                + " FROM blog_comment c WHERE c.creator_id = u.id AND c.publish_status = 'public')")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article a WHERE a.commenters <> (SELECT count(DISTINCT"
                + " c.creator_id) FROM blog_comment c WHERE c.article_id = a.id AND c.publish_status = 'public')"
                + " OR a.latest_comment IS DISTINCT FROM (SELECT max(c.id) FROM blog_comment c WHERE c.article_id = a.id)"))
                .as("articles whose distinct commenters or latest comment differ from the source").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article WHERE latest_comment IS NULL"))
                .as("articles without a comment").isEqualTo(11);
    }

    @Test
    void rollingBackOneChangelogLeavesTheOthersCountersCounting() throws Exception {
        db.execute("CREATE TABLE blog_like (id bigserial PRIMARY KEY, user_id bigint REFERENCES blog_user)");
        CounterDefinition likes = new CounterDefinition("User.likes", USER, "id", KeyType.BIGINT, "likes", "bigint",
                new TableName("public", "blog_like"), "user_id", null, null);
        apply("blog", "blog.changelog.sql", List.of(articleCounter("total_comments", null)));
        // the likes changelog also counts from blog_comment, the source the blog changelog's counter reads
        apply("likes", "likes.changelog.sql", List.of(likes, USER_PUBLIC));
        long blogChangesets = db.queryLong("SELECT count(*) FROM databasechangelog WHERE filename LIKE '%blog.changelog.sql'");
        try (Connection c = db.dataSource().getConnection()) {
            CounterCacheLiquibase.rollbackCount(c, dir.resolve("blog.changelog.sql"), (int) blogChangesets);
        }
        assertThat(db.queryRows("SELECT name FROM countercache.counter ORDER BY name")).containsExactly(
                List.of("public.blog_user.likes"), List.of("public.blog_user.total_public_comments"));
        db.execute("INSERT INTO blog_like (user_id) SELECT 1 + g % 10 FROM generate_series(1, 30) g;"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public');"
                + "SELECT countercache.rollup(1000)");
        assertThat(db.queryLong("SELECT sum(likes) FROM blog_user")).isEqualTo(30);
        assertThat(db.queryLong("SELECT count(*) FROM blog_user u WHERE u.total_public_comments <> (SELECT count(*)"
                + " FROM blog_comment c WHERE c.creator_id = u.id AND c.publish_status = 'public')"))
                .as("the other changelog's counter on the shared source table still counts").isZero();
    }

    @Test
    void removingEveryCounterOfASourceDropsItsTriggersAndCatalogRows() throws Exception {
        apply(List.of(articleCounter("total_comments", null)));
        apply(List.of());
        assertThat(db.queryLong("SELECT count(*) FROM countercache.counter")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'countercache%'")).isZero();
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isZero();
    }

    @Test
    void twoChangelogsInOneDatabaseEachPruneOnlyTheirOwnCounters() throws Exception {
        db.execute("CREATE TABLE blog_like (id bigserial PRIMARY KEY, user_id bigint REFERENCES blog_user);"
                + "INSERT INTO blog_like (user_id) SELECT 1 + g % 10 FROM generate_series(1, 100) g");
        CounterDefinition likes = new CounterDefinition("User.likes", USER, "id", KeyType.BIGINT, "likes", "bigint",
                new TableName("public", "blog_like"), "user_id", null, null);
        apply("blog", "blog.changelog.sql", List.of(articleCounter("total_comments", null)));
        apply("likes", "likes.changelog.sql", List.of(likes));
        assertThat(db.queryRows("SELECT name, changelog FROM countercache.counter ORDER BY name")).containsExactly(
                List.of("public.blog_article.total_comments", "blog"), List.of("public.blog_user.likes", "likes"));

        apply("blog", "blog.changelog.sql", List.of(articleCounter("total_public_comments", "publish_status = 'public'")));
        assertThat(db.queryRows("SELECT name FROM countercache.counter ORDER BY name")).as("after the blog changed")
                .containsExactly(List.of("public.blog_article.total_public_comments"), List.of("public.blog_user.likes"));
        db.execute("INSERT INTO blog_like (user_id) VALUES (1); INSERT INTO blog_comment (creator_id, article_id,"
                + " publish_status) VALUES (1, 1, 'public'); SELECT countercache.rollup(1000)");
        assertThat(db.queryLong("SELECT count(*) FROM blog_user u WHERE u.likes <> (SELECT count(*) FROM blog_like l"
                + " WHERE l.user_id = u.id)")).as("the other changelog's counter still counts").isZero();
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).isZero();

        // the triggers of a table serve every changelog's counters on it: a second changelog counts from
        // blog_comment too, and removing its counter leaves the first one's counting
        apply("users", "users.changelog.sql", List.of(USER_PUBLIC));
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (2, 1, 'public');"
                + " SELECT countercache.rollup(1000)");
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM blog_user u WHERE u.total_public_comments <> (SELECT count(*)"
                + " FROM blog_comment c WHERE c.creator_id = u.id AND c.publish_status = 'public')")).isZero();
        apply("users", "users.changelog.sql", List.of());
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (2, 1, 'public');"
                + " SELECT countercache.rollup(1000)");
        assertThat(mismatches("total_public_comments", "publish_status = 'public'")).as("blog's counter").isZero();
        assertThat(db.queryRows("SELECT name FROM countercache.counters() ORDER BY name")).containsExactly(
                List.of("public.blog_article.total_public_comments"), List.of("public.blog_user.likes"));
    }

    private void apply(String name, String file, List<CounterDefinition> counters) throws Exception {
        Path path = dir.resolve(file);
        Files.writeString(path, ChangelogWriter.render(name, counters, List.of(), null));
        try (Connection c = db.dataSource().getConnection()) {
            CounterCacheLiquibase.update(c, path);
        }
    }

    @Test
    void aWhereThatDoesNotCompileFailsTheUpdateNamingTheField() {
        assertThatThrownBy(() -> apply(List.of(articleCounter("total_bad", "publish = 'public'"))))
                .isInstanceOf(CounterCacheException.class)
                .hasMessageContaining("@CounterCache on Article.total_bad: where = \"publish = 'public'\" is not one boolean"
                        + " expression over public.blog_comment: column \"publish\" does not exist");
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'countercache%'"))
                .as("nothing of the failed changeset is left").isZero();
    }

    @Test
    void aMissingSourceTableFailsTheUpdateNamingTheField() {
        CounterDefinition missing = new CounterDefinition("Article.remarks", ARTICLE, "id", KeyType.BIGINT, "remarks",
                "bigint", new TableName("public", "blog_remark"), "article_id", null, null);
        assertThatThrownBy(() -> apply(List.of(missing)))
                .isInstanceOf(CounterCacheException.class)
                .hasMessageContaining("@CounterCache on Article.remarks: source table public.blog_remark does not exist");
    }

    /**
     * Names and conditions are data in the changelog, never lines of it: a table named with a line break and a
     * changeset directive, a condition that smuggles in a rollback, and a table named in emoji past 63 bytes of
     * function name all install as they are, and count.
     */
    @Test
    void namesAndConditionsCannotAddLinesToTheChangelog() throws Exception {
        String evil = "evil\n-- changeset x:y\nDROP TABLE blog_user;";
        String emoji = "\uD83D\uDE00".repeat(15);   // 60 bytes
        db.execute("CREATE TABLE \"" + evil + "\" (id bigserial PRIMARY KEY, article_id bigint);"
                + "CREATE TABLE \"" + emoji + "\" (id bigserial PRIMARY KEY, article_id bigint);"
                + "INSERT INTO \"" + evil + "\" (article_id) VALUES (1), (1), (2);"
                + "INSERT INTO \"" + emoji + "\" (article_id) VALUES (3)");
        List<CounterDefinition> counters = List.of(
                new CounterDefinition("Article.evil", ARTICLE, "id", KeyType.BIGINT, "evil", "bigint",
                        new TableName("public", evil), "article_id", "article_id > 0 /*\n-- rollback DROP TABLE blog_user\n*/", null),
                new CounterDefinition("Article.smiles", ARTICLE, "id", KeyType.BIGINT, "smiles", "bigint",
                        new TableName("public", emoji), "article_id", null, null));
        String changelog = ChangelogWriter.render(counters, null);
        assertThat(changelog.lines().filter(l -> l.startsWith("-- changeset ") || l.startsWith("-- rollback ")))
                .allMatch(l -> l.startsWith("-- changeset countercache:") || l.startsWith("-- rollback SELECT countercache.")
                        || l.startsWith("-- rollback DO $rollback$") || l.equals("-- rollback empty"));
        apply(counters);
        db.execute("INSERT INTO \"" + evil + "\" (article_id) VALUES (1); INSERT INTO \"" + emoji + "\" (article_id) VALUES (3);"
                + "SELECT countercache.rollup(1000)");
        assertThat(db.queryRows("SELECT id, evil, smiles FROM blog_article WHERE id <= 3 ORDER BY id"))
                .containsExactly(List.of("1", "3", "0"), List.of("2", "1", "0"), List.of("3", "0", "2"));
        assertThat(db.queryLong("SELECT count(*) FROM blog_user")).as("blog_user is still there").isEqualTo(10);
    }

    @Test
    void theChangelogIsDeterministic() {
        List<CounterDefinition> a = List.of(USER_PUBLIC, articleCounter("total_comments", null));
        List<CounterDefinition> b = List.of(articleCounter("total_comments", null), USER_PUBLIC);
        assertThat(ChangelogWriter.render(a, null)).isEqualTo(ChangelogWriter.render(b, null));
    }
}
