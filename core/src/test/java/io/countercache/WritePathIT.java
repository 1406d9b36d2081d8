package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every transition of a source row, proven against real PostgreSQL through the installed triggers and rollup. */
class WritePathIT {

    private static TestDatabase db;

    @BeforeAll
    static void createSchema() throws Exception {
        db = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(db);
    }

    private static long article() {
        return db.queryLong("INSERT INTO blog_article (content) VALUES ('a') RETURNING id");
    }

    private static long user() {
        return db.queryLong("INSERT INTO blog_user (username) VALUES ('u') RETURNING id");
    }

    private static long comment(long user, long article, String status) {
        return db.queryLong("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES ("
                + user + ", " + article + ", '" + status + "', 3) RETURNING id");
    }

    private static long value(String table, String column, long id) {
        BlogSchema.assertExactAfterRollup(db);
        return db.queryLong("SELECT " + column + " FROM " + table + " WHERE id = " + id);
    }

    private static long queued() {
        return db.queryLong("SELECT count(*) FROM countercache.delta");
    }

    @Test
    void insertCountsEveryCommentAndPublicOnesOnlyWhenTheyArePublic() {
        long u = user(), a = article();
        comment(u, a, "public");
        comment(u, a, "private");
        assertThat(value("blog_article", "total_comments", a)).isEqualTo(2);
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(1);
        assertThat(value("blog_user", "total_public_comments", u)).isEqualTo(1);
        assertThat(value("blog_article", "total_likes", a)).isEqualTo(6);
    }

    @Test
    void deleteTakesBackWhatInsertAdded() {
        long u = user(), a = article();
        long c = comment(u, a, "public");
        comment(u, a, "public");
        db.execute("DELETE FROM blog_comment WHERE id = " + c);
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(1);
        assertThat(value("blog_user", "total_public_comments", u)).isEqualTo(1);
    }

    @Test
    void flippingTheStatusMovesThePublicCountBothWays() {
        long u = user(), a = article();
        long c = comment(u, a, "private");
        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE id = " + c);
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(1);
        db.execute("UPDATE blog_comment SET publish_status = 'private' WHERE id = " + c);
        assertThat(value("blog_article", "total_public_comments", a)).isZero();
        assertThat(value("blog_article", "total_comments", a)).isEqualTo(1);
    }

    @Test
    void reparentingACommentMovesTheCountToTheNewArticle() {
        long u = user(), from = article(), to = article();
        long c = comment(u, from, "public");
        db.execute("UPDATE blog_comment SET article_id = " + to + " WHERE id = " + c);
        assertThat(value("blog_article", "total_public_comments", from)).isZero();
        assertThat(value("blog_article", "total_public_comments", to)).isEqualTo(1);
        assertThat(value("blog_article", "total_likes", to)).isEqualTo(3);
        assertThat(value("blog_user", "total_public_comments", u)).isEqualTo(1);
    }

    @Test
    void reparentingAndFlippingAtOnceTakesFromTheOldAndGivesNothingToTheNew() {
        long u = user(), other = user(), from = article(), to = article();
        long c = comment(u, from, "public");
        db.execute("UPDATE blog_comment SET article_id = " + to + ", creator_id = " + other
                + ", publish_status = 'private' WHERE id = " + c);
        assertThat(value("blog_article", "total_public_comments", from)).isZero();
        assertThat(value("blog_article", "total_public_comments", to)).isZero();
        assertThat(value("blog_article", "total_comments", to)).isEqualTo(1);
        assertThat(value("blog_user", "total_public_comments", u)).isZero();
        assertThat(value("blog_user", "total_public_comments", other)).isZero();
    }

    @Test
    void changingTheSummedColumnAddsTheDifference() {
        long u = user(), a = article();
        long c = comment(u, a, "public");
        db.execute("UPDATE blog_comment SET likes = 10 WHERE id = " + c);
        assertThat(value("blog_article", "total_likes", a)).isEqualTo(10);
        db.execute("UPDATE blog_comment SET likes = NULL WHERE id = " + c);
        assertThat(value("blog_article", "total_likes", a)).isZero();
    }

    @Test
    void aNullForeignKeyEnqueuesNothingAndSettingItCounts() {
        long u = user(), a = article();
        BlogSchema.assertExactAfterRollup(db);
        long c = db.queryLong("INSERT INTO blog_comment (creator_id, publish_status) VALUES (" + u + ", 'private') RETURNING id");
        assertThat(queued()).as("deltas queued by a comment on no article by a private comment").isZero();
        db.execute("UPDATE blog_comment SET article_id = " + a + " WHERE id = " + c);
        assertThat(value("blog_article", "total_comments", a)).isEqualTo(1);
        db.execute("UPDATE blog_comment SET article_id = NULL WHERE id = " + c);
        assertThat(value("blog_article", "total_comments", a)).isZero();
    }

    @Test
    void anUpdateThatChangesNothingRelevantEnqueuesNothing() {
        long u = user(), a = article();
        long c = comment(u, a, "public");
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_comment SET message = 'edited' WHERE id = " + c);
        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE id = " + c);
        assertThat(queued()).isZero();
        db.execute("UPDATE blog_comment SET likes = likes + 1 WHERE id = " + c);
        assertThat(db.queryRows("SELECT DISTINCT counter_id::text FROM countercache.delta ORDER BY 1"))
                .as("only the counters that read likes queue a change of likes")
                .containsExactlyInAnyOrder(List.of(String.valueOf(BlogSchema.ARTICLE_LIKES.id())),
                        List.of(String.valueOf(BlogSchema.ARTICLE_MOST_LIKES.id())));
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void aRolledBackTransactionLeavesNothingBehind() throws Exception {
        long u = user(), a = article();
        BlogSchema.assertExactAfterRollup(db);
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (" + u + ", " + a + ", 'public')");
            c.rollback();
        }
        assertThat(queued()).isZero();
        assertThat(value("blog_article", "total_comments", a)).isZero();
    }

    @Test
    void aRolledBackSavepointTakesItsDeltasWithIt() throws Exception {
        long u = user(), a = article();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (" + u + ", " + a + ", 'public')");
            Savepoint sp = c.setSavepoint();
            st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (" + u + ", " + a + ", 'public')");
            c.rollback(sp);
            c.commit();
        }
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(1);
    }

    @Test
    void aBulkStatementEnqueuesOneDeltaPerTarget() {
        long u = user(), a = article(), b = article();
        BlogSchema.assertExactAfterRollup(db);
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) SELECT " + u
                + ", CASE WHEN i % 2 = 0 THEN " + a + " ELSE " + b + " END, 'public' FROM generate_series(1, 1000) i");
        // per article: total_comments, total_public_comments and a touch of most_likes; for the user:
        // total_public_comments
        assertThat(queued()).isEqualTo(7);
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(500);
        db.execute("UPDATE blog_comment SET article_id = " + a + " WHERE article_id = " + b);
        assertThat(value("blog_article", "total_comments", a)).isEqualTo(1000);
        assertThat(value("blog_article", "total_comments", b)).isZero();
        db.execute("DELETE FROM blog_comment WHERE article_id = " + a);
        assertThat(value("blog_user", "total_public_comments", u)).isZero();
    }

    /**
     * A capture reads a statement of one row, of up to 1,000 rows and of more in three ways (single_sql, a fold whose
     * plan is cached, a fold planned for the statement): each ends exact, in every strategy, for counts, conditions,
     * sums of bigint and numeric columns, uuid keys and a path, whichever size ran first in the session.
     */
    @Test
    void statementsOfEverySizeAreCountedInEveryStrategy() throws Exception {
        for (Strategy strategy : List.of(Strategy.QUEUE, Strategy.UNLOGGED, Strategy.SLOTTED, Strategy.DIRECT)) {
            TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
            BlogSchema.create(own, strategy);
            own.execute("INSERT INTO blog_user (id) VALUES (1), (2); INSERT INTO blog_article (id) SELECT generate_series(1, 3);"
                    + "INSERT INTO shop (id) VALUES (1), (2); INSERT INTO product (id, shop_id) VALUES (1, 1), (2, 2);"
                    + "INSERT INTO shop_order (id) VALUES ('00000000-0000-0000-0000-000000000001')");
            for (int rows : new int[] {1, 2, 1_500, 1, 1_000, 1_001, 1}) {
                own.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes)"
                        + " SELECT 1 + i % 2, 1 + i % 3, CASE WHEN i % 3 = 0 THEN 'private' ELSE 'public' END, i"
                        + " FROM generate_series(1, " + rows + ") i;"
                        + "INSERT INTO review (product_id, stars, approved) SELECT 1 + i % 2, i % 5, i % 2 = 0"
                        + " FROM generate_series(1, " + rows + ") i;"
                        + "INSERT INTO shop_line (order_id, amount, price) SELECT '00000000-0000-0000-0000-000000000001',"
                        + " CASE WHEN i = 1 THEN 9223372036800000000 ELSE 1 END, i * 1.25"
                        + " FROM generate_series(1, " + rows + ") i");
                String some = " WHERE id IN (SELECT id FROM %s ORDER BY id DESC LIMIT " + rows + ")";
                own.execute("UPDATE blog_comment SET publish_status = CASE publish_status WHEN 'public' THEN 'private'"
                        + " ELSE 'public' END, article_id = 1 + article_id % 3" + some.formatted("blog_comment") + ";"
                        + "UPDATE review SET approved = NOT approved, product_id = 3 - product_id" + some.formatted("review") + ";"
                        + "UPDATE shop_line SET price = price + 1" + some.formatted("shop_line") + ";"
                        + "UPDATE product SET shop_id = 3 - shop_id WHERE id = 1");
                BlogSchema.assertExactAfterRollup(own);
                own.execute("DELETE FROM blog_comment WHERE id IN (SELECT id FROM blog_comment ORDER BY id LIMIT " + rows / 2 + ");"
                        + "DELETE FROM review WHERE id IN (SELECT id FROM review ORDER BY id LIMIT " + rows / 2 + ");"
                        + "DELETE FROM shop_line WHERE amount > 1 OR id IN (SELECT id FROM shop_line ORDER BY id LIMIT " + rows / 2 + ")");
                BlogSchema.assertExactAfterRollup(own);
            }
            assertThat(own.queryRows("SELECT counter_id, target_id, delta, error FROM countercache.dead_letter"))
                    .as("dead letters (%s)", strategy).isEmpty();
        }
    }

    @Test
    void truncatingTheSourceRecountsItsCounters() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        own.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public'), (1, 1, 'public')");
        BlogSchema.assertExactAfterRollup(own);
        own.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        own.execute("TRUNCATE blog_comment");
        BlogSchema.assertExactAfterRollup(own);
        assertThat(own.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isZero();
    }

    @Test
    void deltasForATargetThatNoLongerExistsAreDropped() {
        long u = user(), a = article();
        comment(u, a, "public");
        db.execute("DELETE FROM blog_article WHERE id = " + a);   // cascades to the comment: -1 for a gone article
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void uuidAndIntegerKeysAreCounted() {
        db.execute("INSERT INTO shop_order (id) VALUES ('00000000-0000-0000-0000-000000000001');"
                + "INSERT INTO shop_line (order_id, amount) VALUES ('00000000-0000-0000-0000-000000000001', 250),"
                + " ('00000000-0000-0000-0000-000000000001', 100);"
                + "INSERT INTO tag (id) VALUES (7); INSERT INTO tagging (tag_id) VALUES (7), (7), (7);"
                + "DELETE FROM tagging WHERE id = (SELECT min(id) FROM tagging)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT total FROM shop_order")).isEqualTo(350);
        assertThat(db.queryLong("SELECT uses FROM tag WHERE id = 7")).isEqualTo(2);
    }

    @Test
    void theRollupNeitherWaitsForNorLosesATargetRowLockedByAnotherTransaction() throws Exception {
        long u = user(), a = article();
        BlogSchema.assertExactAfterRollup(db);
        comment(u, a, "public");
        RollupWorker worker = RollupWorker.builder(db.dataSource()).build();
        assertThat(worker.metrics().queueDepth()).as("queue depth after one public comment with likes").isEqualTo(6);
        try (Connection holder = db.dataSource().getConnection(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("SELECT 1 FROM blog_article WHERE id = " + a + " FOR UPDATE");
            try (Connection r = db.dataSource().getConnection(); Statement rs = r.createStatement()) {
                rs.execute("SET lock_timeout = '5s'");  // a rollup that waited would fail here instead of returning
                while (RollupWorker.rollupOnce(r, 1000) > 0) {
                    // drain what can be drained
                }
            }
            // the article's five counters wait in the queue (its commenters as a delta of the count, its value
            // folded); the user's counter, not locked, was applied
            assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("deltas kept for the locked article")
                    .isEqualTo(5);
            assertThat(db.queryLong("SELECT total_public_comments FROM blog_user WHERE id = " + u)).isEqualTo(1);
            holder.commit();
        }
        assertThat(worker.drain()).isEqualTo(5);
        assertThat(worker.metrics()).extracting(RollupMetrics::queueDepth, RollupMetrics::appliedDeltas).containsExactly(0L, 5L);
        assertThat(value("blog_article", "total_public_comments", a)).isEqualTo(1);
    }

    @Test
    void aWorkerRunsARequestedRecountInBatchesAndRepairsDrift() throws Exception {
        long u = user();
        for (int i = 0; i < 5; i++) {
            comment(u, article(), "public");
        }
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_article SET total_comments = total_comments + 10;"   // drift, by hand
                + "SELECT countercache.request_recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        try (RollupWorker worker = RollupWorker.builder(db.dataSource()).batchSize(2)
                .pollInterval(java.time.Duration.ofMillis(5)).build().start()) {
            io.countercache.testing.Await.until("the recount job is done",
                    () -> db.queryLong("SELECT count(*) FROM countercache.recount_job") == 0);
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    /**
     * A queue that never runs dry (every round full) must not starve a recount: the worker gives it a batch at least
     * once a second. Here the recount ends while tens of thousands of deltas still wait; before, it waited for the
     * queue to empty.
     */
    @Test
    void aQueueThatNeverRunsDryDoesNotStarveARecount() throws Exception {
        long a = article();
        BlogSchema.assertExactAfterRollup(db);
        db.execute("INSERT INTO countercache.delta (counter_id, target_id, delta) SELECT "
                + BlogSchema.ARTICLE_COMMENTS.id() + ", " + a + ", 0 FROM generate_series(1, 100000);"
                + "UPDATE blog_article SET total_comments = total_comments + 10 WHERE id = " + a + ";"   // drift
                + "SELECT countercache.request_recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        try (RollupWorker worker = RollupWorker.builder(db.dataSource()).batchSize(10)
                .pollInterval(java.time.Duration.ofMillis(5)).build().start()) {
            io.countercache.testing.Await.until("the recount job is done",
                    () -> db.queryLong("SELECT count(*) FROM countercache.recount_job") == 0);
            assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("deltas still queued").isPositive();
        }
        BlogSchema.assertExactAfterRollup(db);
        assertThat(value("blog_article", "total_comments", a)).isZero();
    }

    @Test
    void deltasWhoseSumOverflowsAreDeadLetteredOneByOneAndStopNothingElse() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        String order = "'00000000-0000-0000-0000-0000000000aa'";
        own.execute("INSERT INTO shop_order (id) VALUES (" + order + ");"
                + "INSERT INTO shop_line (order_id, amount) VALUES (" + order + ", 4611686018427387904);"
                + "INSERT INTO shop_line (order_id, amount) VALUES (" + order + ", 4611686018427387904);"
                + "INSERT INTO blog_article (id) VALUES (1); INSERT INTO blog_comment (article_id, publish_status)"
                + " VALUES (1, 'public')");
        while (own.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // the overflowing order must not stop the round
        }
        assertThat(own.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isOne();
        assertThat(own.queryRows("SELECT delta, deltas, sqlstate FROM countercache.dead_letter WHERE target_uuid = " + order))
                .containsExactly(List.of("4611686018427387904", "1", "22003"), List.of("4611686018427387904", "1", "22003"));
        assertThat(own.queryLong("SELECT count(*) FROM countercache.delta")).isZero();
    }

    /**
     * A BEFORE UPDATE trigger of the target that returns NULL keeps the round's update from writing the row it locked.
     * Counted as applied, the row's deltas would be lost; they are dead-lettered with the cause, and a recount after
     * the fix puts them back.
     */
    @Test
    void deltasOfATargetRowATriggerKeepsUnwrittenAreDeadLetteredNotLost() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        own.execute("""
                CREATE FUNCTION frozen() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RETURN CASE WHEN OLD.id = 1 THEN NULL ELSE NEW END; END $$;
                CREATE TRIGGER frozen BEFORE UPDATE ON blog_article FOR EACH ROW EXECUTE FUNCTION frozen();
                INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);
                INSERT INTO blog_comment (creator_id, article_id, publish_status)
                VALUES (1, 1, 'public'), (1, 1, 'public'), (1, 2, 'public');
                """);
        while (own.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        assertThat(own.queryLong("SELECT count(*) FROM countercache.delta")).as("queue after rollup").isZero();
        assertThat(own.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isOne();
        assertThat(own.queryLong("SELECT total_public_comments FROM blog_user WHERE id = 1")).isEqualTo(3);
        assertThat(own.queryRows("SELECT DISTINCT target_id, sqlstate FROM countercache.dead_letter"))
                .containsExactly(List.of("1", "09000"));
        assertThat(own.queryLong("SELECT delta FROM countercache.dead_letter WHERE counter_id = "
                + BlogSchema.ARTICLE_COMMENTS.id())).isEqualTo(2);
        assertThat(own.queryRows("SELECT DISTINCT error FROM countercache.dead_letter").get(0).get(0))
                .contains("public.blog_article", "BEFORE UPDATE trigger on the table returned NULL, or changed or kept");

        own.execute("DROP TRIGGER frozen ON blog_article;"
                + "SELECT countercache.recount(c.counter_id) FROM (SELECT DISTINCT counter_id FROM countercache.dead_letter) c");
        BlogSchema.assertExactWithoutDrift(own);
    }

    /**
     * The early exit of a many-row UPDATE pairs old and new rows by primary key, which a deferrable key does not make
     * unique until commit: two rows moved onto one key and one signature must still be counted as moved.
     */
    @Test
    void anUpdateThroughADeferrableKeyIsCounted() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        own.execute("CREATE TABLE note (id bigint PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, article_id bigint,"
                + " shown boolean NOT NULL)");
        CounterDefinition notes = new CounterDefinition("Article.notes", BlogSchema.ARTICLE, "id", KeyType.BIGINT,
                "notes", "bigint", new TableName("public", "note"), "article_id", "shown", null);
        BlogSchema.install(own, List.of(BlogSchema.ARTICLE_COMMENTS, notes));
        own.execute("INSERT INTO blog_article (id) VALUES (1), (2); INSERT INTO note VALUES (1, 1, true), (2, 2, true)");
        own.executeInTransaction("UPDATE note SET id = 1, article_id = 1, shown = true;"
                + " UPDATE note SET id = 2 WHERE ctid = (SELECT max(ctid) FROM note)");
        BlogSchema.assertExactWithoutDrift(own);
        assertThat(own.queryRows("SELECT id, notes FROM blog_article ORDER BY id"))
                .containsExactly(List.of("1", "2"), List.of("2", "0"));
    }

    /**
     * A round run inside an application's transaction leaves the transaction as it found it: a direct counter
     * written after it still updates its column at once (a round's own updates queue instead, for the duration of
     * the call only).
     */
    @Test
    void aDirectCounterWrittenAfterARoundInTheSameTransactionIsStillWrittenAtOnce() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own, Strategy.DIRECT);
        own.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1)");
        try (Connection c = own.dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SELECT countercache.rollup(100)");
            st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
            try (var rs = st.executeQuery("SELECT total_comments FROM blog_article WHERE id = 1")) {
                rs.next();
                assertThat(rs.getLong(1)).as("written in the writer's transaction").isOne();
            }
            c.commit();
        }
        assertThat(own.queryLong("SELECT count(*) FROM countercache.delta WHERE counter_id = "
                + BlogSchema.ARTICLE_COMMENTS.id())).as("queued").isZero();
        BlogSchema.assertExactWithoutDrift(own);
    }

    /** A trigger that writes the row but not the counter values the rollup gave it: kept (OLD) or changed. */
    @Test
    void deltasOfATargetRowATriggerRewritesAreDeadLetteredNotLost() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        own.execute("""
                CREATE FUNCTION archived() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF OLD.id = 1 THEN RETURN OLD; END IF;
                        IF OLD.id = 3 THEN NEW.total_comments := least(NEW.total_comments, 1); END IF;
                        RETURN NEW;
                    END $$;
                CREATE TRIGGER archived BEFORE UPDATE ON blog_article FOR EACH ROW EXECUTE FUNCTION archived();
                INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2), (3);
                INSERT INTO blog_comment (creator_id, article_id, publish_status)
                VALUES (1, 1, 'public'), (1, 2, 'public'), (1, 3, 'public'), (1, 3, 'public');
                """);
        while (own.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        assertThat(own.queryLong("SELECT count(*) FROM countercache.delta")).as("queue after rollup").isZero();
        assertThat(own.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isOne();
        assertThat(own.queryRows("SELECT DISTINCT target_id, sqlstate FROM countercache.dead_letter ORDER BY 1"))
                .containsExactly(List.of("1", "09000"), List.of("3", "09000"));
        assertThat(own.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d"))
                .as("dead-lettered, so pending: nothing lost").isEmpty();

        own.execute("DROP TRIGGER archived ON blog_article;"
                + "SELECT countercache.recount(c.counter_id) FROM (SELECT DISTINCT counter_id FROM countercache.dead_letter) c");
        BlogSchema.assertExactWithoutDrift(own);
    }

    @Test
    void aDeltaTheTargetRefusesIsDeadLetteredWhileEverythingElseFlows() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(WritePathIT.class);
        BlogSchema.create(own);
        own.execute("ALTER TABLE blog_article ADD CONSTRAINT at_most_two CHECK (total_comments <= 2);"
                + "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public'),"
                + " (1, 1, 'public'), (1, 1, 'public'), (1, 2, 'public')");
        while (own.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        assertThat(own.queryLong("SELECT count(*) FROM countercache.delta")).as("queue after rollup").isZero();
        assertThat(own.queryRows("SELECT target_id, delta, deltas, sqlstate FROM countercache.dead_letter"))
                .containsExactly(java.util.List.of("1", "3", "1", "23514"));
        assertThat(own.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isEqualTo(1);
        assertThat(own.queryLong("SELECT total_public_comments FROM blog_article WHERE id = 1"))
                .as("other counters of the refused target").isEqualTo(3);
        assertThat(own.queryLong("SELECT total_public_comments FROM blog_user WHERE id = 1")).isEqualTo(4);

        try (Connection c = own.dataSource().getConnection()) {
            assertThat(ExactReads.read(c, BlogSchema.ARTICLE_COMMENTS, java.util.List.of(1L, 2L)))
                    .as("exact reads count the parked delta").containsExactlyInAnyOrderEntriesOf(java.util.Map.of(1L, 3L, 2L, 1L));
        }
        RollupMetrics metrics = RollupWorker.builder(own.dataSource()).build().metrics();
        assertThat(metrics.deadLetters()).as("dead letters seen by the metrics").isEqualTo(1);
        assertThat(metrics.queueDepth()).isZero();

        // the fix: lift the constraint, recount; the parked delta is accounted for and cleared
        own.execute("ALTER TABLE blog_article DROP CONSTRAINT at_most_two;"
                + "SELECT countercache.recount(id) FROM countercache.counter WHERE name = 'public.blog_article.total_comments'");
        assertThat(own.queryLong("SELECT count(*) FROM countercache.dead_letter")).isZero();
        BlogSchema.assertExactAfterRollup(own);
    }

    @Test
    void aDefinitionTheDatabaseDoesNotMatchFailsWhenInstalledNamingTheFieldAndTheFix() {
        var missingTarget = new io.countercache.spi.CounterDefinition("Post.comments",
                new io.countercache.spi.TableName("public", "post"), "id", io.countercache.spi.KeyType.BIGINT,
                "comments", "bigint", BlogSchema.COMMENT, "article_id", null, null);
        var wrongKeyType = new io.countercache.spi.CounterDefinition("Article.byUuid", BlogSchema.ARTICLE, "id",
                io.countercache.spi.KeyType.UUID, "by_uuid", "bigint", BlogSchema.COMMENT, "article_id", null, null);
        var textSum = new io.countercache.spi.CounterDefinition("Article.statuses", BlogSchema.ARTICLE, "id",
                io.countercache.spi.KeyType.BIGINT, "statuses", "bigint", BlogSchema.COMMENT, "article_id", null,
                "publish_status");
        var intFk = new io.countercache.spi.CounterDefinition("Article.tags", BlogSchema.ARTICLE, "id",
                io.countercache.spi.KeyType.BIGINT, "tags", "bigint",
                new io.countercache.spi.TableName("public", "tagging"), "tag_id", null, null);
        for (var c : java.util.List.of(missingTarget, wrongKeyType, textSum, intFk)) {
            var units = io.countercache.spi.Installation.units(java.util.List.of(c));
            assertThatThrownBy(() -> db.executeInTransaction(units.get(2).sql()))
                    .as(c.declaredBy()).hasMessageContaining("@CounterCache on " + c.declaredBy() + ": ")
                    .hasMessageContaining(switch (c.declaredBy()) {
                        case "Post.comments" -> "target table public.post does not exist";
                        case "Article.byUuid" -> "key public.blog_article.id is bigint, the entity model says uuid";
                        case "Article.tags" -> "foreign key column public.tagging.tag_id is integer, the key it points at is bigint";
                        default -> "sum column public.blog_comment.publish_status is text";
                    });
        }
    }

    @Test
    void aRecountOutsideReadCommittedIsRefusedWithTheFix() {
        assertThatThrownBy(() -> db.executeInTransaction("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;"
                + "SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")"))
                .hasMessageContaining("countercache: a recount cannot be counted exactly in a REPEATABLE READ transaction");
    }

    @Test
    void aConditionThatDoesNotCompileFailsWhenInstalledNamingTheField() {
        var bad = new io.countercache.spi.CounterDefinition("Article.totalBad", BlogSchema.ARTICLE, "id",
                io.countercache.spi.KeyType.BIGINT, "total_bad", "bigint", BlogSchema.COMMENT, "article_id",
                "status = 'public'", null);
        var units = io.countercache.spi.Installation.units(java.util.List.of(bad));
        assertThatThrownBy(() -> db.executeInTransaction(units.get(2).sql()))
                .hasMessageContaining("@CounterCache on Article.totalBad")
                .hasMessageContaining("where = \"status = 'public'\" is not one boolean expression over public.blog_comment")
                .hasMessageContaining("column \"status\" does not exist");
    }
}
