package io.countercache;

import io.countercache.internal.InstallSql;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.LimitDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.util.PSQLException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Least privilege with real roles: an application role writes, truncates and reads counters with no right on the
 * library's objects, and cannot read, forge, delete or lock deltas or run the rollup; the worker runs with the grants
 * of docs/security.md (read from that file) and nothing more; a worker missing a grant on one target table holds back
 * that table only.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)   // the application's rights grow from test to test
class RolesIT {

    private static TestDatabase db;
    /** Every counter of the blog, those per bucket and one with a retention included. */
    private static final List<CounterDefinition> ALL_COUNTERS = java.util.stream.Stream.concat(
            BlogSchema.EVERY.stream(), java.util.stream.Stream.of(BlogSchema.ARTICLE_WEEK_COMMENTS)).toList();

    @BeforeAll
    static void rolesAndSchema() throws Exception {
        db = TestPostgres.newDatabase(RolesIT.class);
        BlogSchema.create(db, Strategy.QUEUE, ALL_COUNTERS);
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(ALL_COUNTERS,
                    List.of(new LimitDefinition("test", "calls", "1 day", 2, "UTC", 2))));
        }
        db.execute("""
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app_user') THEN
                        CREATE ROLE app_user LOGIN PASSWORD 'app';
                    END IF;
                    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'countercache_worker') THEN
                        CREATE ROLE countercache_worker LOGIN PASSWORD 'worker';
                    END IF;
                END $$;
                GRANT USAGE, CREATE ON SCHEMA public TO app_user;
                GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA public TO app_user;
                GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO app_user;
                INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);
                """);
    }

    private static PGSimpleDataSource as(String user, String password) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser(user);
        ds.setPassword(password);
        return ds;
    }

    private static void run(PGSimpleDataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** The SQL block that follows {@code <!-- script: name -->} in docs/security.md. */
    static String script(String name) throws Exception {
        String doc = Files.readString(Path.of("../docs/security.md"));
        Matcher m = Pattern.compile("<!-- script: " + name + " -->\\s*```sql\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        assertThat(m.find()).as("docs/security.md has the " + name + " script").isTrue();
        return m.group(1);
    }

    @Test
    @Order(1)
    void theApplicationWritesTruncatesAndReadsCountersWithNoRightOnTheLibrarysObjects() throws Exception {
        PGSimpleDataSource app = as("app_user", "app");
        run(app, "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, 1, 'public', 1);"
                + "UPDATE blog_comment SET publish_status = 'private'; DELETE FROM blog_comment;"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 2, 'public');"
                + "INSERT INTO blog_article (id) VALUES (3); DELETE FROM blog_article WHERE id = 3;"
                + "TRUNCATE blog_comment;"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 2, 'public');"
                + "SELECT total_comments FROM blog_article;"
                // a target keyed by two columns, whose generated key packs them: written and re-keyed by the app
                + "INSERT INTO player (id) VALUES (5); INSERT INTO seat (player_id, league_id) VALUES (5, 1);"
                + "INSERT INTO game (challenger_id, league_id, score) VALUES (5, 1, 2);"
                + "UPDATE seat SET league_id = 2 WHERE player_id = 5; UPDATE game SET league_id = 2");
        for (String forbidden : List.of(
                "SELECT * FROM countercache.delta",
                "INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (1, 1, 1000)",
                "DELETE FROM countercache.delta",
                "SELECT countercache.rollup(100)",
                "SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")",
                "BEGIN; LOCK TABLE countercache.delta; COMMIT",
                "CREATE TABLE mine (id bigint, article_id bigint); CREATE TRIGGER forge AFTER INSERT ON mine"
                        + " REFERENCING NEW TABLE AS countercache_new FOR EACH STATEMENT"
                        + " EXECUTE FUNCTION countercache." + db.queryRows(
                                "SELECT countercache.trigger_function('capture', 'public', 'blog_comment')").get(0).get(0) + "()")) {
            assertThatThrownBy(() -> run(app, forbidden)).as(forbidden).hasMessageContaining("permission denied");
        }
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isOne();
    }

    @Test
    @Order(2)
    void withTheReaderScriptTheApplicationReadsExactlyValidatesAndAdmitsButStillCannotForgeOrLock() throws Exception {
        db.execute(script("reader"));
        PGSimpleDataSource app = as("app_user", "app");
        run(app, "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        try (Connection c = app.getConnection()) {
            assertThat(ExactReads.read(c, BlogSchema.ARTICLE_COMMENTS, List.of(1L)).get(1L)).isEqualTo(
                    db.queryLong("SELECT count(*) FROM blog_comment WHERE article_id = 1"));
            assertThat(CatalogCheck.differences(c, ALL_COUNTERS, Set.of()))
                    .as("the boot check, run by the application").isEmpty();
            assertThat(Limits.admit(c, "calls", 7).admitted()).isTrue();
            // the reader script grants exact reads, but only of the counters whose column the role may read
            db.execute("REVOKE SELECT ON blog_user FROM app_user");
            assertThatThrownBy(() -> ExactReads.read(c, BlogSchema.USER_PUBLIC, List.of(1L)))
                    .hasMessageContaining("countercache.exact: role app_user may not read public.blog_user.total_public_comments");
            // a login that switches roles is judged by the role it switched to
            assertThatThrownBy(() -> db.executeInTransaction("SET LOCAL ROLE app_user; SELECT * FROM countercache.exact("
                    + BlogSchema.USER_PUBLIC.id() + ", ARRAY[1]::bigint[])"))
                    .hasMessageContaining("countercache.exact: role app_user may not read");
            db.execute("GRANT SELECT (id, total_public_comments) ON blog_user TO app_user");
            assertThat(ExactReads.read(c, BlogSchema.USER_PUBLIC, List.of(1L)).get(1L)).isEqualTo(
                    db.queryLong("SELECT count(*) FROM blog_comment WHERE creator_id = 1 AND publish_status = 'public'"));
            db.execute("GRANT SELECT ON blog_user TO app_user");
            c.setAutoCommit(false);
            for (String forbidden : List.of("SELECT * FROM countercache.delta FOR UPDATE",
                    "INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (1, 1, 1000)",
                    "UPDATE countercache.dead_letter SET delta = 0", "SELECT countercache.rollup(10)")) {
                assertThatThrownBy(() -> {
                    try (Statement st = c.createStatement()) {
                        st.execute(forbidden);
                    }
                }).as(forbidden).hasMessageContaining("permission denied");
                c.rollback();
            }
        }
    }

    @Test
    @Order(3)
    void theWorkerRunsWithItsScriptAndAMissingGrantHoldsBackOnlyThatTable() throws Exception {
        db.execute(script("worker"));
        PGSimpleDataSource worker = as("countercache_worker", "worker");
        assertThatThrownBy(() -> run(worker, "INSERT INTO blog_comment (publish_status) VALUES ('x')"))
                .hasMessageContaining("permission denied");

        db.execute("REVOKE UPDATE ON blog_user FROM countercache_worker;"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public'), (1, 2, 'public')");
        RollupWorker w = RollupWorker.builder(worker).build();
        w.drain();
        assertThat(db.queryRows("SELECT DISTINCT counter_id FROM countercache.delta"))
                .as("only the user counter waits").containsExactly(List.of(String.valueOf(BlogSchema.USER_PUBLIC.id())));
        assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).as("dead letters").isZero();

        db.execute(script("worker"));                              // the grant is back
        w.drain();
        run(worker, "SELECT countercache.recount(" + BlogSchema.USER_PUBLIC.id() + ")");
        run(worker, "SELECT countercache.recount(" + BlogSchema.ARTICLE_LIKES.id() + ")");   // a sum of a column
        run(worker, "SELECT countercache.recount(" + BlogSchema.ORDER_VALUE.id() + ")");     // a sum of money
        run(worker, "SELECT countercache.recount(" + BlogSchema.ARTICLE_DAY_COMMENTS.id() + ")");   // per bucket
        db.execute("INSERT INTO blog_article_week (article_id, week) VALUES (1, '2000-01-03')");   // long gone
        run(worker, "SELECT countercache.prune_buckets(100)");
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_week WHERE week < '2001-01-01'")).isZero();
        w.drain();
        BlogSchema.assertExactAfterRollup(db);
        assertThat(w.metrics().queueDepth()).isZero();

        // a worker granted before rounds called the lanes' functions, locked the rows they lock and claimed from the
        // queue's generations: the next changelog grants them to it
        db.execute("REVOKE EXECUTE ON FUNCTION countercache.rollup_report(integer, boolean, integer),"
                + " countercache.lane_of(bigint, uuid, integer), countercache.in_lane(bigint, uuid, integer, integer),"
                + " countercache.unwritten(name, name) FROM countercache_worker; REVOKE UPDATE ON countercache.queue_claim, countercache.lane_claim,"
                + " countercache.distinct_claim FROM countercache_worker;"
                + " REVOKE ALL ON countercache.delta_0, countercache.delta_1 FROM countercache_worker;"
                + " REVOKE EXECUTE ON FUNCTION countercache.generation(timestamptz), countercache.take_generation(integer),"
                + " countercache.queue_sums_sql() FROM countercache_worker");
        assertThatThrownBy(() -> run(worker, "SELECT countercache.rollup(10)")).hasMessageContaining("permission denied");
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(ALL_COUNTERS,
                    List.of(new LimitDefinition("test", "calls", "1 day", 2, "UTC", 2))));
        }
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public'), (1, 2, 'public')");
        RollupWorker.builder(worker).lanes(2).build().drain();
        w.drain();
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    @Order(4)
    void theGuardScriptInstallsTheDdlGuardWhichChecksTheMigratorsMigrationsOnly() throws Exception {
        String dropAll = "DROP EVENT TRIGGER countercache_ddl_guard; DROP EVENT TRIGGER countercache_drop_guard;"
                + " DROP EVENT TRIGGER countercache_trigger_guard";
        db.execute(dropAll);
        // the worker warns of each missing event trigger when it starts, with the fix, and an install puts them back
        try (Connection c = as("countercache_worker", "worker").getConnection()) {
            assertThat(io.countercache.internal.Round.setupProblems(c)).hasSize(3).allSatisfy(p -> assertThat(p)
                    .contains("of countercache's DDL guard is missing").contains("runs the guard script"));
            try (Connection migrator = db.dataSource().getConnection()) {
                Installation.apply(migrator, Installation.units(ALL_COUNTERS,
                        List.of(new LimitDefinition("test", "calls", "1 day", 2, "UTC", 2))));
            }
            assertThat(io.countercache.internal.Round.setupProblems(c)).as("after an install as a superuser").isEmpty();
            db.execute("ALTER EVENT TRIGGER countercache_trigger_guard DISABLE");
            assertThat(io.countercache.internal.Round.setupProblems(c)).singleElement().asString()
                    .contains("countercache_trigger_guard of countercache's DDL guard is disabled")
                    .contains("ALTER EVENT TRIGGER countercache_trigger_guard ENABLE");
        }
        db.execute(dropAll);
        db.execute("ALTER TABLE blog_comment ADD COLUMN unguarded int; ALTER TABLE blog_comment DROP COLUMN unguarded");
        db.execute(script("guard"));
        assertThatThrownBy(() -> db.executeInTransaction("ALTER TABLE blog_comment RENAME COLUMN likes TO hearts"))
                .hasMessageContaining("countercache: ALTER TABLE would break 3 counters:");
        run(as("app_user", "app"), "CREATE TABLE own (id int); ALTER TABLE own ADD COLUMN x int;"
                + " ALTER TABLE own RENAME COLUMN x TO y; DROP TABLE own");
    }

    /**
     * Row-level security that may hide rows from the worker is reported, with its fix, before any round: a recount
     * as the worker leaves the hidden rows out and writes a wrong count. A policy that shows the worker every row
     * ends the report; a restrictive policy beside it brings it back.
     */
    @Test
    @Order(5)
    void rowLevelSecurityThatMayHideRowsFromTheWorkerIsReportedWithItsFix() throws Exception {
        db.execute(script("worker") + "ALTER TABLE blog_comment ENABLE ROW LEVEL SECURITY;"
                + "CREATE POLICY app_rows ON blog_comment TO app_user USING (true) WITH CHECK (true)");
        PGSimpleDataSource worker = as("countercache_worker", "worker");
        String check = "SELECT p.table_name || ': ' || p.problem || '; fix: ' || p.fix"
                + " FROM countercache.row_security_problems(current_user) p";
        List<String> reported;
        try (Connection c = worker.getConnection()) {
            reported = io.countercache.internal.Round.setupProblems(c);
        }
        assertThat(reported).singleElement().asString()
                .contains("row-level security on public.blog_comment applies to the rollup's role countercache_worker")
                .contains("Article.totalComments").contains("ALTER ROLE countercache_worker BYPASSRLS");
        assertThat(db.queryRows(check.replace("current_user", "'app_user'"))).as("the policy shows app_user every row")
                .isEmpty();

        // what it warns of: the worker sees no comment, and its recount writes 0 over article 1's comments
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        BlogSchema.assertExactAfterRollup(db);
        run(worker, "SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        RollupWorker.builder(worker).build().drain();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).as("recounted blind").isZero();

        db.execute("CREATE POLICY countercache_worker ON blog_comment TO countercache_worker USING (true)"
                + " WITH CHECK (true)");
        try (Connection c = worker.getConnection()) {
            assertThat(io.countercache.internal.Round.setupProblems(c)).as("with the fix's policy").isEmpty();
            db.execute("CREATE POLICY restricted ON blog_comment AS RESTRICTIVE TO countercache_worker"
                    + " USING (publish_status = 'public')");
            assertThat(io.countercache.internal.Round.setupProblems(c)).as("beside a restrictive one").hasSize(1);
        }
        db.execute("DROP POLICY restricted ON blog_comment");
        run(worker, "SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        BlogSchema.assertExactAfterRollup(db);
        db.execute("DROP POLICY countercache_worker ON blog_comment; DROP POLICY app_rows ON blog_comment;"
                + " ALTER TABLE blog_comment DISABLE ROW LEVEL SECURITY");
    }
    /**
     * A migrator that is not a superuser (the admin role of a managed PostgreSQL) installs every counter, and they
     * count; the install skips the DDL guard's event triggers, which only a superuser may create, and warns of each
     * with its fix, and a superuser's guard script completes it.
     */
    @Test
    @Order(6)
    void aMigratorThatIsNotASuperuserInstallsTheCountersAndIsWarnedOfTheGuard() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(RolesIT.class);
        PGSimpleDataSource migrator = migratorOwning(own);
        List<String> warnings;
        try (Connection c = migrator.getConnection()) {
            try (Statement st = c.createStatement()) {
                st.execute(BlogSchema.TABLES);
            }
            warnings = UpgradeIT.installNoting(c, Installation.units(BlogSchema.EVERY));
        }
        assertThat(warnings).as("the install's warnings").hasSize(3).allSatisfy(w -> assertThat(w)
                .contains("of countercache's DDL guard is missing"));
        assertThat(own.queryLong("SELECT count(*) FROM pg_event_trigger")).isZero();
        run(migrator, "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        BlogSchema.assertExactAfterRollup(own);
        own.execute(script("guard"));
        assertThat(own.queryRows("SELECT guard FROM countercache.guard_problems()")).as("after the guard script")
                .isEmpty();
    }

    @Test
    @Order(7)
    void aMigratorUpgradesAnInstallMadeByASuperuserOnceTheSchemaIsHandedToIt() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(RolesIT.class);
        PGSimpleDataSource migrator = migratorOwning(own);
        run(migrator, BlogSchema.TABLES);
        BlogSchema.install(own, BlogSchema.EVERY);   // as a superuser, with the guard
        List<Installation.Unit> units = Installation.units(BlogSchema.EVERY);
        assertThatThrownBy(() -> {
            try (Connection c = migrator.getConnection()) {
                Installation.apply(c, units);
            }
        }).isInstanceOfSatisfying(PSQLException.class, e -> {
            assertThat(e.getSQLState()).isEqualTo("42501");
            assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("countercache: role migrator cannot install"
                    + " over the countercache schema, which " + own.user() + " owns (or some of it)");
            assertThat(e.getServerErrorMessage().getHint()).isEqualTo("have " + own.user() + " or a superuser hand the"
                    + " schema to migrator first: SELECT countercache.transfer_ownership('migrator'); or apply this"
                    + " changelog as " + own.user());
        });

        assertThat(own.queryLong("SELECT countercache.transfer_ownership('migrator')")).as("objects handed over")
                .isGreaterThan(100);
        assertThat(notOwnedBy(own, "migrator")).as("not the migrator's").isEmpty();
        List<String> warnings;
        try (Connection c = migrator.getConnection()) {
            warnings = UpgradeIT.installNoting(c, units);
        }
        assertThat(warnings).as("the guard a superuser made is in place").noneMatch(w -> w.contains("guard"));
        assertThat(own.queryRows("SELECT * FROM countercache.installed_problems(NULL)")).isEmpty();
        run(migrator, "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        BlogSchema.assertExactAfterRollup(own);

        // the migrator, no superuser, hands it on to a role it may become: the schema must go first, or the new
        // owner would have no right to create in it, which owning a table or a function there takes
        own.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'next_migrator') THEN"
                + " CREATE ROLE next_migrator; END IF; END $$; GRANT next_migrator TO migrator;"
                + " GRANT CREATE ON DATABASE " + own.name() + " TO next_migrator");
        run(migrator, "SELECT countercache.transfer_ownership('next_migrator')");
        assertThat(notOwnedBy(own, "next_migrator")).as("not the next migrator's").isEmpty();
        // what the member's install creates, as a later release adds a function and a table is counted for the first
        // time, goes to the owner: a trigger function runs with its owner's rights
        own.execute("DROP FUNCTION countercache.schema_digest();"
                + " SELECT countercache.drop_triggers('capture', 'public', 'blog_comment');"
                + " SELECT countercache.drop_unused_trigger_functions()");
        try (Connection c = migrator.getConnection()) {
            Installation.apply(c, units);   // as a member of the owner, which may do what the owner may
        }
        assertThat(notOwnedBy(own, "next_migrator")).as("what the member created").isEmpty();
        run(migrator, "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'private')");
        BlogSchema.assertExactAfterRollup(own);
    }

    /**
     * The triggers run as the schema's owner: a table the application owns may get row-level security whose policy
     * would hide rows from the capture, or run the application's code with the owner's rights. The owner reads such a
     * table with row_security off, so the statement fails instead, and the boot check names the table and the fix.
     */
    @Test
    @Order(8)
    void aPolicyOfATableTheSchemaOwnerDoesNotOwnNeverRunsAsItAndIsReported() throws Exception {
        TestDatabase own = TestPostgres.newDatabase(RolesIT.class);
        PGSimpleDataSource migrator = migratorOwning(own);
        run(migrator, BlogSchema.TABLES);
        try (Connection c = migrator.getConnection()) {
            Installation.apply(c, Installation.units(BlogSchema.EVERY));
        }
        run(migrator, "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        // the application's table, which the migrator may read (it needs no more: its triggers are in place)
        own.execute("ALTER TABLE blog_comment OWNER TO app_user; GRANT SELECT ON blog_comment TO migrator;"
                + " GRANT CREATE ON SCHEMA public TO app_user;"
                + " GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_user");
        PGSimpleDataSource app = new PGSimpleDataSource();
        app.setUrl(own.jdbcUrl());
        app.setUser("app_user");
        app.setPassword("app");
        run(app, "CREATE TABLE ran_as (who name);"
                + " CREATE FUNCTION peek() RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN"
                + " INSERT INTO public.ran_as VALUES (current_user); RETURN true; END $$;"
                + " GRANT INSERT ON ran_as TO PUBLIC;"
                + " CREATE FUNCTION peek_when_planned() RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN"
                + " RETURN public.peek(); END $$;"
                + " ALTER TABLE blog_comment ENABLE ROW LEVEL SECURITY;"
                + " CREATE POLICY peeking ON blog_comment USING (public.peek());"
                // a planner folds an immutable call with constant arguments: planning a query over the table runs it
                + " CREATE POLICY peeking_when_planned ON blog_comment USING (public.peek_when_planned())");
        assertThatThrownBy(() -> run(app, "TRUNCATE blog_comment")).as("the capture reads what it takes back")
                .hasMessageContaining("query would be affected by row-level security policy for table \"blog_comment\"");
        assertThat(own.queryRows("SELECT DISTINCT who FROM ran_as WHERE who <> 'app_user'")).as("ran as another role")
                .isEmpty();
        List<List<String>> problems = own.queryRows("SELECT problem || '; fix: ' || fix"
                + " FROM countercache.installed_problems(NULL)");
        assertThat(own.queryRows("SELECT DISTINCT who FROM ran_as WHERE who <> 'app_user'"))
                .as("ran as another role while the boot check planned its check of a where").isEmpty();
        assertThat(problems).isNotEmpty()
                .allSatisfy(p -> assertThat(p.get(0)).contains("ALTER ROLE migrator BYPASSRLS"))
                .anySatisfy(p -> assertThat(p.get(0)).contains("row-level security on public.blog_comment applies to"
                        + " migrator, the owner of the countercache schema, as whom the triggers read it"))
                .anySatisfy(p -> assertThat(p.get(0)).contains("where = \"publish_status = 'public'\" is not checked:"
                        + " query would be affected by row-level security policy for table \"blog_comment\" (as migrator)"));
        // the install's recount, as the migrator: it fails rather than count through the policies, or run them
        run(migrator, "SELECT countercache.request_recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        assertThatThrownBy(() -> run(migrator, "CALL countercache.run_recounts()"))
                .hasMessageContaining("the recount cannot read what it counts as migrator: query would be affected by"
                        + " row-level security policy for table \"blog_comment\"");
        assertThat(own.queryRows("SELECT DISTINCT who FROM ran_as WHERE who <> 'app_user'")).as("ran in the recount")
                .isEmpty();
        own.execute("ALTER ROLE migrator BYPASSRLS");
        try {
            assertThat(own.queryRows("SELECT * FROM countercache.installed_problems(NULL)")).as("with the fix").isEmpty();
            run(migrator, "CALL countercache.run_recounts()");
            run(app, "TRUNCATE blog_comment");
            assertThat(own.queryRows("SELECT DISTINCT who FROM ran_as WHERE who <> 'app_user'")).isEmpty();
            BlogSchema.assertExactAfterRollup(own);
        } finally {
            own.execute("ALTER ROLE migrator NOBYPASSRLS");
        }
    }

    /** What in the countercache schema, the schema included, a role does not own. */
    private static List<List<String>> notOwnedBy(TestDatabase own, String role) {
        return own.queryRows("SELECT c.oid::regclass::text FROM pg_class c WHERE c.relnamespace ="
                + " 'countercache'::regnamespace AND c.relowner <> '" + role + "'::regrole UNION ALL SELECT"
                + " p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'countercache'::regnamespace AND"
                + " p.proowner <> '" + role + "'::regrole UNION ALL SELECT 'the schema' FROM pg_namespace"
                + " WHERE nspname = 'countercache' AND nspowner <> '" + role + "'::regrole");
    }

    /** A role {@code migrator} that owns the database and its schema public, as on a managed PostgreSQL. */
    private static PGSimpleDataSource migratorOwning(TestDatabase own) {
        own.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'migrator') THEN"
                + " CREATE ROLE migrator LOGIN PASSWORD 'migrator'; END IF; END $$;"
                + "ALTER DATABASE " + own.name() + " OWNER TO migrator; ALTER SCHEMA public OWNER TO migrator");
        PGSimpleDataSource migrator = new PGSimpleDataSource();
        migrator.setUrl(own.jdbcUrl());
        migrator.setUser("migrator");
        migrator.setPassword("migrator");
        return migrator;
    }
}
