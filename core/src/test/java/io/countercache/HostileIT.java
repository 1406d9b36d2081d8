package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.spi.LimitDefinition;
import io.countercache.spi.TableName;
import io.countercache.testing.Await;
import io.countercache.testing.Sessions;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A hostile review's findings, each as it was attacked: a role with no grant at all cannot stall a limit or a recount,
 * an application's lock does not stall the rollup, an application (or a migrator) cannot switch capture off unseen,
 * a condition cannot run code the application controls, a crash of the unlogged queue heals under a rollup run from
 * SQL alone, and a slotted counter with a CHECK does not dead-letter a delta an older slot amount would have allowed.
 */
class HostileIT {

    private TestDatabase db;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(HostileIT.class);
        BlogSchema.create(db);
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(BlogSchema.ALL,
                    List.of(new LimitDefinition("test", "calls", "1 day", 100, "UTC", 2))));
        }
        db.execute("""
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'nobody') THEN
                        CREATE ROLE nobody LOGIN PASSWORD 'nobody';
                    END IF;
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'careless_app') THEN
                        CREATE ROLE careless_app LOGIN PASSWORD 'app';
                    END IF;
                END $$;
                GRANT USAGE, CREATE ON SCHEMA public TO careless_app;
                GRANT ALL ON ALL TABLES IN SCHEMA public TO careless_app;   -- TRIGGER included
                GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO careless_app;
                INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);
                INSERT INTO tag (id) VALUES (1);
                """);
    }

    private Connection as(String user, String password) throws SQLException {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser(user);
        ds.setPassword(password);
        return ds.getConnection();
    }

    private static void run(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Finding 1: advisory locks live in one namespace every role shares; the library's locks are row locks now. */
    @Test
    void aRoleWithNoGrantCannotStallALimitOrARecount() throws Exception {
        int id = BlogSchema.ARTICLE_COMMENTS.id();
        try (Connection nobody = as("nobody", "nobody"); Sessions sessions = new Sessions(db.dataSource())) {
            // the keys the limit and the recount locks had: a limit's name hashed, a counter's id
            run(nobody, "SELECT pg_advisory_lock(hashtextextended('calls', 1668248948));"
                    + "SELECT pg_advisory_lock(hashtextextended('calls' || E'\\x01' || 'k', 1668248948));"
                    + "SELECT pg_advisory_lock(1668248948, " + id + ")");
            Sessions.Session s = sessions.open("migrator");
            // run() fails the test if the statement waits for a lock
            assertThat(s.run("SELECT countercache.admit('calls', 'k')")).containsExactly(List.of("t"));
            assertThat(s.queryLong("SELECT countercache.recount(" + id + ")")).isZero();
            s.run("SELECT countercache.request_recount(" + id + ")");
            s.run("CALL countercache.run_recounts()");
            assertThat(s.queryLong("SELECT count(*) FROM countercache.recount_job")).isZero();
            // nor can it take the locks the library does take now
            assertThatThrownBy(() -> run(nobody, "SELECT * FROM countercache.recount_job FOR UPDATE"))
                    .hasMessageContaining("permission denied");
            assertThatThrownBy(() -> run(nobody, "SELECT * FROM countercache.limit_def FOR KEY SHARE"))
                    .hasMessageContaining("permission denied");
            assertThatThrownBy(() -> run(nobody, "SELECT * FROM countercache.queue_claim FOR SHARE"))
                    .hasMessageContaining("permission denied");   // which would stop every round's claim
        }
    }

    /** Finding 1 again: the lanes of a round and the folding of distinct values took advisory locks too. */
    @Test
    void aRoleWithNoGrantCannotStallARoundInLanesOrTheFoldingOfDistinctValues() throws Exception {
        try (Connection nobody = as("nobody", "nobody")) {
            // the keys both lanes of two and the folding of the commenters' values had
            run(nobody, "SELECT pg_advisory_lock(hashtextextended('countercache.lane:0/2', 0)),"
                    + " pg_advisory_lock(hashtextextended('countercache.lane:1/2', 0)),"
                    + " pg_advisory_lock(hashtextextended('countercache.distinct:"
                    + BlogSchema.ARTICLE_COMMENTERS.id() + "', 0))");
            db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
            db.execute("SELECT count(*) FROM countercache.rollup_report(1000, false, 2)");
            assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(1);
            assertThat(db.queryLong("SELECT commenters FROM blog_article WHERE id = 1")).isEqualTo(1);
            // nor can it take the locks a round does take now
            for (String table : List.of("lane_claim", "distinct_claim")) {
                assertThatThrownBy(() -> run(nobody, "SELECT * FROM countercache." + table + " FOR UPDATE"))
                        .hasMessageContaining("permission denied");
            }
        }
    }

    /** Finding 3: a recount whose table an application locked is passed over; the rollup goes on. */
    @Test
    void anApplicationsLockOnASourceStallsNeitherTheRollupNorTheOtherRecounts() throws Exception {
        db.execute("SELECT countercache.request_recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        try (Sessions sessions = new Sessions(db.dataSource());
             RollupWorker worker = RollupWorker.builder(db.dataSource()).pollInterval(Duration.ofMillis(5))
                     .name("hostile-rollup").build()) {
            Sessions.Session app = sessions.open("app");
            app.run("BEGIN; LOCK TABLE blog_comment IN ACCESS EXCLUSIVE MODE");
            worker.start();
            db.execute("INSERT INTO tagging (tag_id) VALUES (1), (1), (1)");
            Await.until("the rollup applies the tag's deltas while blog_comment is locked",
                    () -> db.queryLong("SELECT uses FROM tag WHERE id = 1") == 3);
            db.execute("SELECT countercache.request_recount(" + BlogSchema.TAG_USES.id() + ")");
            Await.until("the tag's recount runs while the other one's table is locked",
                    () -> db.queryLong("SELECT count(*) FROM countercache.recount_job WHERE counter_id = "
                            + BlogSchema.TAG_USES.id()) == 0);
            app.run("ROLLBACK");
        }
    }

    /** Finding 4: capture cannot be switched off without an error, nor bypassed by replica mode. */
    @Test
    void captureCannotBeSwitchedOffUnseen() throws Exception {
        try (Connection app = as("careless_app", "app")) {
            run(app, "CREATE FUNCTION public.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$");
            assertThatThrownBy(() -> run(app, "CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON blog_comment"
                    + " REFERENCING NEW TABLE AS countercache_new FOR EACH STATEMENT EXECUTE FUNCTION public.noop()"))
                    .as("a role with the TRIGGER privilege replacing a capture trigger")
                    .hasMessageContaining("countercache: CREATE TRIGGER would let writes go uncounted")
                    .hasMessageContaining("countercache_insert calls another function");
        }
        assertThatThrownBy(() -> db.execute("ALTER TABLE blog_comment ENABLE REPLICA TRIGGER countercache_insert"))
                .as("the migrator switching a trigger to replicas only")
                .hasMessageContaining("countercache_insert fires for replicas only");
        assertThatThrownBy(() -> db.execute("ALTER TABLE blog_comment DISABLE TRIGGER countercache_delete"))
                .hasMessageContaining("countercache_delete is disabled");
        db.execute("SET session_replication_role = replica;"
                + " INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public');"
                + " RESET session_replication_role");
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isOne();
    }

    /**
     * A trigger of a table the library writes runs as the rollup (or the migrator): one whose code the application
     * may change is refused, and one whose function it changes afterwards is reported (the worker logs it).
     */
    @Test
    void aTriggerOnATargetWhoseCodeTheApplicationControlsIsRefusedOrReported() throws Exception {
        try (Connection app = as("careless_app", "app")) {
            run(app, "CREATE FUNCTION public.forge() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " INSERT INTO countercache.delta (counter_id, target_id, delta)"
                    + " SELECT k.id, 2, 1000 FROM countercache.counter k; RETURN NEW; END $$");
            assertThatThrownBy(() -> run(app, "CREATE TRIGGER forge BEFORE UPDATE ON blog_article FOR EACH ROW"
                    + " EXECUTE FUNCTION public.forge()"))
                    .hasMessageContaining("countercache: CREATE TRIGGER would let writes go uncounted or run as the rollup")
                    .hasMessageContaining("trigger forge of public.blog_article calls public.forge(), which runs with the"
                            + " rights of the role that writes the table (the rollup's, or the migrator's) and which"
                            + " careless_app may change")
                    .hasMessageContaining("make the function SECURITY DEFINER");
            // nor on a child table or a partition of one: the rollup's UPDATE of the table writes their rows
            db.execute("CREATE TABLE blog_article_old () INHERITS (blog_article);"
                    + " CREATE TABLE rack (id bigint PRIMARY KEY, comments bigint NOT NULL DEFAULT 0) PARTITION BY HASH (id);"
                    + " CREATE TABLE rack_0 PARTITION OF rack FOR VALUES WITH (MODULUS 1, REMAINDER 0);"
                    + " GRANT ALL ON blog_article_old, rack, rack_0 TO careless_app");
            try (Connection c = db.dataSource().getConnection()) {
                CounterDefinition rack = new CounterDefinition("Rack.comments", new TableName("public", "rack"),
                        "id", KeyType.BIGINT, "comments", "bigint", new TableName("public", "blog_comment"),
                        "article_id", null, null);
                List<CounterDefinition> counters = new java.util.ArrayList<>(BlogSchema.ALL);
                counters.add(rack);
                Installation.apply(c, Installation.units(counters,
                        List.of(new LimitDefinition("test", "calls", "1 day", 100, "UTC", 2))));
            }
            for (String child : List.of("blog_article_old", "rack_0")) {
                assertThatThrownBy(() -> run(app, "CREATE TRIGGER forge BEFORE UPDATE ON " + child + " FOR EACH ROW"
                        + " EXECUTE FUNCTION public.forge()"))
                        .as("a trigger on " + child)
                        .hasMessageContaining("trigger forge of public." + child + " calls public.forge()");
            }
            run(app, "CREATE FUNCTION public.peek() RETURNS boolean LANGUAGE sql AS $$ SELECT true $$");
            assertThatThrownBy(() -> run(app, "CREATE TRIGGER peek BEFORE UPDATE ON blog_article FOR EACH ROW"
                    + " WHEN (public.peek()) EXECUTE FUNCTION suppress_redundant_updates_trigger()"))
                    .as("a WHEN clause runs as the writer too")
                    .hasMessageContaining("trigger peek of public.blog_article calls public.peek()");
            // one that runs as its owner is the application's own business
            run(app, "CREATE FUNCTION public.stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
                    + " SET search_path = pg_catalog AS $$ BEGIN RETURN NEW; END $$;"
                    + " CREATE TRIGGER stamp BEFORE UPDATE ON blog_article FOR EACH ROW EXECUTE FUNCTION public.stamp()");
            assertThat(db.queryRows("SELECT * FROM countercache.trigger_rights_problems()")).isEmpty();
            run(app, "ALTER FUNCTION public.stamp() SECURITY INVOKER");
        }
        assertThat(db.queryRows("SELECT problem FROM countercache.trigger_rights_problems()"))
                .singleElement().satisfies(row -> assertThat(row.get(0)).contains("trigger stamp of public.blog_article"
                        + " calls public.stamp(), which runs with the rights of the role that writes the table"));
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).as("not a boot failure").isEmpty();
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        BlogSchema.assertExactAfterRollup(db);
    }

    /**
     * A rule on INSERT or UPDATE of a target, even DO ALSO, makes PostgreSQL refuse the rollup's writes of the table,
     * so every delta of its counters would be dead-lettered: the guard refuses to create one, and the boot check, the
     * CLI's status and a changelog applied over one report it with the fix.
     */
    @Test
    void aRuleOnATargetIsRefusedAndReported() throws Exception {
        String rule = "CREATE RULE audit AS ON UPDATE TO blog_article DO ALSO NOTIFY audit";
        assertThatThrownBy(() -> db.execute(rule))
                .hasMessageContaining("countercache: CREATE RULE would break")
                .hasMessageContaining("target table public.blog_article has rule audit on UPDATE, and PostgreSQL"
                        + " refuses countercache's writes of a table with such a rule")
                .hasMessageContaining("drop the rule (DROP RULE audit ON public.blog_article)");
        db.executeInTransaction("SET LOCAL countercache.ddl_guard = off; " + rule);
        assertThat(db.queryRows("SELECT problem FROM countercache.installed_problems()")).as("the boot check's")
                .isNotEmpty().allSatisfy(row -> assertThat(row.get(0)).contains("has rule audit on UPDATE"));
        assertThatThrownBy(() -> {
            try (Connection c = db.dataSource().getConnection()) {
                Installation.apply(c, Installation.units(BlogSchema.ALL));
            }
        }).as("a changelog applied over it").hasMessageContaining("has rule audit on UPDATE");

        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        db.queryLong("SELECT countercache.rollup(1000)");
        assertThat(db.queryRows("SELECT DISTINCT error FROM countercache.dead_letter")).as("what the check prevents")
                .containsExactly(List.of("DO ALSO rules are not supported for data-modifying statements in WITH"));
        db.execute("DROP RULE audit ON blog_article;"
                + " SELECT countercache.recount(k.id) FROM countercache.counter k");   // the fix the README gives
        BlogSchema.assertExactWithoutDrift(db);
    }

    /** Finding 2: a condition runs as the migrator, so it may not call what the application controls. */
    @Test
    void aConditionCallingAFunctionTheApplicationControlsIsRefused() throws Exception {
        try (Connection app = as("careless_app", "app")) {
            run(app, "CREATE FUNCTION public.visible(status text) RETURNS boolean LANGUAGE sql IMMUTABLE"
                    + " AS $$ SELECT status = 'public' $$");
        }
        db.execute("CREATE FUNCTION public.shout(status text) RETURNS boolean LANGUAGE sql VOLATILE"
                + " AS $$ SELECT status = 'public' $$;"
                + "CREATE FUNCTION public.trusted(status text) RETURNS boolean LANGUAGE sql IMMUTABLE"
                + " AS $$ SELECT status = 'public' $$");
        TableName users = new TableName("public", "blog_user");
        CounterDefinition app = new CounterDefinition("User.visible", users, "id", KeyType.BIGINT, "visible", "bigint",
                BlogSchema.COMMENT, "creator_id", "public.visible(publish_status)", null);
        CounterDefinition volatileOne = new CounterDefinition("User.shouted", users, "id", KeyType.BIGINT, "shouted",
                "bigint", BlogSchema.COMMENT, "creator_id", "public.shout(publish_status)", null);
        // judged when a row is written, a condition on the clock would never take back what it counted
        CounterDefinition recent = new CounterDefinition("User.recent", users, "id", KeyType.BIGINT, "recent",
                "bigint", BlogSchema.COMMENT, "creator_id", "created_at > now() - interval '1 day'", null);
        CounterDefinition today = new CounterDefinition("User.today", users, "id", KeyType.BIGINT, "today",
                "bigint", BlogSchema.COMMENT, "creator_id", "created_at >= CURRENT_DATE", null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(app, volatileOne, recent, today)))
                .hasMessageContaining("@CounterCache on User.recent: where = \"created_at > now() - interval '1 day'\""
                        + " calls now() (STABLE: its result may change while the row does not)")
                .hasMessageContaining("@CounterCache on User.today: where = \"created_at >= CURRENT_DATE\" calls")
                .hasMessageContaining("a CURRENT_... value (STABLE: it may change while the row does not)")
                .hasMessageContaining("@CounterCache on User.visible: where = \"public.visible(publish_status)\" calls"
                        + " public.visible(text) (owned by careless_app)")
                .hasMessageContaining("@CounterCache on User.shouted: where = \"public.shout(publish_status)\" calls"
                        + " public.shout(text) (VOLATILE)")
                .hasMessageContaining("call only IMMUTABLE functions (not now(), current_date or a cast that reads the time zone) owned by a superuser");
        // trusted(text) is the superuser's, but careless_app may create in public: for an argument that is not text
        // exactly (a varchar column, as Hibernate makes them), an overload of its own taking that type would fit the
        // call better, and be chosen the next time the capture is planned
        CounterDefinition trusted = new CounterDefinition("User.trusted", users, "id", KeyType.BIGINT, "trusted",
                "bigint", BlogSchema.COMMENT, "creator_id", "public.trusted(publish_status)", null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(trusted)))
                .hasMessageContaining("@CounterCache on User.trusted: where = \"public.trusted(publish_status)\" calls"
                        + " public.trusted(text) (in schema public, where careless_app may add an overload)")
                .hasMessageContaining("in a schema where no other role may create");
        db.execute("CREATE SCHEMA vetted; ALTER FUNCTION public.trusted(text) SET SCHEMA vetted;"
                + " GRANT USAGE ON SCHEMA vetted TO careless_app");
        BlogSchema.install(db, List.of(new CounterDefinition("User.trusted", users, "id", KeyType.BIGINT, "trusted",
                "bigint", BlogSchema.COMMENT, "creator_id", "vetted.trusted(publish_status)", null)));
        // a literal is converted by the settings of the session that parses the condition: each writer's for the
        // capture, the worker's for a recount; a writer in another time zone could count a row a recount leaves out
        CounterDefinition since = new CounterDefinition("User.since", users, "id", KeyType.BIGINT, "since",
                "bigint", BlogSchema.COMMENT, "creator_id", "created_at >= '2024-01-01'", null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(since)))
                .hasMessageContaining("@CounterCache on User.since: where = \"created_at >= '2024-01-01'\" reads"
                        + " differently in another time zone, date style or interval style")
                .hasMessageContaining("write times with their offset");
        BlogSchema.install(db, List.of(new CounterDefinition("User.since", users, "id", KeyType.BIGINT, "since",
                "bigint", BlogSchema.COMMENT, "creator_id", "created_at >= '2024-01-01 00:00+00'", null)));
        // a cast through text names no function in the condition's tree, yet the text of a time depends on TimeZone
        CounterDefinition year = new CounterDefinition("User.year", users, "id", KeyType.BIGINT, "year",
                "bigint", BlogSchema.COMMENT, "creator_id", "created_at::text LIKE '2024%'", null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(year)))
                .hasMessageContaining("@CounterCache on User.year: where = \"created_at::text LIKE '2024%'\" calls a"
                        + " cast through text that is not immutable");
        // a STABLE function beside such a cast is named alone: the copy would fail on it too, naming the cast
        CounterDefinition both = new CounterDefinition("User.year", users, "id", KeyType.BIGINT, "year", "bigint",
                BlogSchema.COMMENT, "creator_id", "likes::text LIKE '1%' AND created_at < now()", null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(both)))
                .hasMessageContaining("calls now() (STABLE")
                .hasMessageNotContaining("cast through text");
        BlogSchema.install(db, List.of(new CounterDefinition("User.year", users, "id", KeyType.BIGINT, "year",
                "bigint", BlogSchema.COMMENT, "creator_id", "likes::text LIKE '1%'", null)));
    }

    /** Finding 7: the unlogged queue lost, with rollups run from SQL only (pg_cron), still ends exact. */
    @Test
    void aLostUnloggedQueueHealsUnderARollupRunFromSqlAlone() throws Exception {
        BlogSchema.install(db, BlogSchema.ALL.stream()
                .map(c -> c.distinctColumn() != null ? c : c.withStrategy(Strategy.UNLOGGED, 0)).toList());
        db.execute("CALL countercache.run_recounts()");
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) SELECT 1, 1 + g % 2, 'public'"
                + " FROM generate_series(1, 50) g");
        // what a crash does to unlogged tables
        db.execute("TRUNCATE countercache.delta_unlogged; TRUNCATE countercache.unlogged_marker");
        try (Sessions sessions = new Sessions(db.dataSource())) {
            Sessions.Session first = sessions.open("first round");
            first.run("BEGIN; SELECT count(*) FROM countercache.rollup_report(1000)");   // holds the marker's lock
            Sessions.Session second = sessions.open("second round");
            second.run("SELECT countercache.rollup(1000)");   // goes on: neither waits nor fails
            first.run("COMMIT");
        }
        for (int i = 0; i < 20 && db.queryLong("SELECT count(*) FROM countercache.recount_job") > 0; i++) {
            db.execute("SELECT countercache.rollup(1000)");
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    /** Finding 8: a refused delta waits for the amounts of its counter and target that sit in slots. */
    @Test
    void aSlottedDeltaThatACheckRefusesWaitsForTheAmountAWriterHoldsInASlot() throws Exception {
        BlogSchema.install(db, BlogSchema.ALL.stream()
                .map(c -> c == BlogSchema.ARTICLE_COMMENTS ? c.withStrategy(Strategy.SLOTTED, 4) : c).toList());
        db.execute("CALL countercache.run_recounts()");
        db.execute("ALTER TABLE blog_article ADD CONSTRAINT never_negative CHECK (total_comments >= 0);"
                + "INSERT INTO blog_comment (id, creator_id, article_id, publish_status) VALUES (1, 1, 1, 'public')");
        try (Sessions sessions = new Sessions(db.dataSource())) {
            Sessions.Session writer = sessions.open("writer");
            writer.run("BEGIN; INSERT INTO blog_comment (id, creator_id, article_id, publish_status)"
                    + " VALUES (2, 1, 1, 'public')");   // holds the slot with the committed +1
            Sessions.Session deleter = sessions.open("deleter");
            deleter.run("DELETE FROM blog_comment WHERE id = 1");   // its -1 opens another slot
            while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
                // flush the -1's slot and try it: the CHECK refuses 0 - 1
            }
            assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).as("dead letters").isZero();
            writer.run("COMMIT");
        }
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).isZero();
    }

    /** Finding 6: the smallest bigint in a summed column can be deleted, updated and truncated, and stays exact. */
    @Test
    void theSmallestBigintInASummedColumnCanBeTakenBack() {
        String order = "'00000000-0000-0000-0000-000000000001'";
        db.execute("INSERT INTO shop_order (id) VALUES (" + order + ");"
                + "INSERT INTO shop_line (order_id, amount) VALUES (" + order + ", -9223372036854775808);"
                + "SELECT countercache.rollup(1000);"
                + "UPDATE shop_line SET amount = -9223372036854775807;"
                + "UPDATE shop_line SET amount = -9223372036854775808;"
                + "DELETE FROM shop_line;"
                + "INSERT INTO shop_line (order_id, amount) VALUES (" + order + ", -9223372036854775808);"
                + "TRUNCATE shop_line;"
                + "INSERT INTO shop_line (order_id, amount) VALUES (" + order + ", -9223372036854775808), (" + order + ", 5)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT total FROM shop_order")).isEqualTo(Long.MIN_VALUE + 5);
    }
}
