package io.countercache;

import io.countercache.spi.Installation;
import io.countercache.spi.LimitDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Look-alikes planted ahead of pg_catalog on the search_path of every session (the migrator's, the application's, the
 * worker's) never run: not while installing, in the triggers, the rollup, a recount, exact reads, metrics, the boot
 * check or an admission.
 */
class PinnedIT {

    private static final String PLANTED = """
            CREATE SCHEMA evil;
            CREATE TABLE evil.calls (what text);
            GRANT USAGE ON SCHEMA evil TO PUBLIC;
            GRANT INSERT ON evil.calls TO PUBLIC;
            CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('now()'); SELECT pg_catalog.now() $$;
            CREATE FUNCTION evil.plus(bigint, bigint) RETURNS bigint LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('+'); SELECT $1 OPERATOR(pg_catalog.+) $2 $$;
            CREATE FUNCTION evil.plus(bigint, numeric) RETURNS numeric LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('+'); SELECT $1 OPERATOR(pg_catalog.+) $2 $$;
            CREATE FUNCTION evil.eq(bigint, bigint) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('='); SELECT $1 OPERATOR(pg_catalog.=) $2 $$;
            CREATE FUNCTION evil.eq(text, text) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('='); SELECT $1 OPERATOR(pg_catalog.=) $2 $$;
            CREATE FUNCTION evil.eq(integer, integer) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('='); SELECT $1 OPERATOR(pg_catalog.=) $2 $$;
            CREATE FUNCTION evil.eq(bigint, integer) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('='); SELECT $1 OPERATOR(pg_catalog.=) $2 $$;
            CREATE FUNCTION evil.eq(oid, regprocedure) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('='); SELECT $1 OPERATOR(pg_catalog.=) $2::oid $$;
            CREATE FUNCTION evil.ne(oid, integer) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('<>'); SELECT $1 OPERATOR(pg_catalog.<>) $2::oid $$;
            CREATE FUNCTION evil.holds(tstzrange, timestamptz) RETURNS boolean LANGUAGE sql
                AS $$ INSERT INTO evil.calls VALUES ('@>'); SELECT $1 OPERATOR(pg_catalog.@>) $2 $$;
            CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = regprocedure, FUNCTION = evil.eq);
            CREATE OPERATOR evil.<> (LEFTARG = oid, RIGHTARG = integer, FUNCTION = evil.ne);
            CREATE OPERATOR evil.@> (LEFTARG = tstzrange, RIGHTARG = timestamptz, FUNCTION = evil.holds);
            CREATE OPERATOR evil.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.plus);
            CREATE OPERATOR evil.+ (LEFTARG = bigint, RIGHTARG = numeric, FUNCTION = evil.plus);
            CREATE OPERATOR evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.eq);
            CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.eq);
            CREATE OPERATOR evil.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = evil.eq);
            CREATE OPERATOR evil.= (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.eq);
            """;

    @Test
    void plantedFunctionsAndOperatorsNeverRun() throws Exception {
        TestDatabase db = TestPostgres.newDatabase(PinnedIT.class);
        db.execute(PLANTED + BlogSchema.TABLES);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(db.jdbcUrl());
        ds.setUser(db.user());
        ds.setPassword(db.password());
        ds.setOptions("-c search_path=evil,public,pg_catalog");
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            Installation.apply(c, Installation.units(BlogSchema.ALL,
                    List.of(new LimitDefinition("test", "calls", "1 day", 5, "UTC", 2))));
            st.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                    + "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, 1, 'public', 2);"
                    + "UPDATE blog_comment SET article_id = 2; DELETE FROM blog_article WHERE id OPERATOR(pg_catalog.=) 1;"
                    + "INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 2, 'public')");
            RollupWorker worker = RollupWorker.builder(ds).build();
            worker.drain();
            st.execute("SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
            st.execute("SELECT countercache.request_recount(" + BlogSchema.ARTICLE_PUBLIC.id() + ")");
            st.execute("CALL countercache.run_recounts(1)");   // batches of one key: a COMMIT after each
            worker.drain();
            assertThat(ExactReads.read(c, BlogSchema.ARTICLE_COMMENTS, List.of(2L))).containsEntry(2L, 2L);
            assertThat(worker.metrics().queueDepth()).isZero();
            assertThat(CatalogCheck.differences(c, BlogSchema.ALL, Set.of())).isEmpty();
            assertThat(Limits.admit(c, "calls", 1).admitted()).isTrue();
            st.execute("SELECT * FROM countercache.limit_usage_report");   // the view binds its operators when made
            // an install again, now that a worker may run rounds: it grants what it adds to rounds to whoever may
            // run one, finding them by comparing oids and grantees
            st.execute("DO $$ BEGIN CREATE ROLE pinned_worker; EXCEPTION WHEN duplicate_object THEN NULL; END $$;"
                    + " GRANT EXECUTE ON FUNCTION countercache.rollup_report(integer, boolean) TO pinned_worker");
            Installation.apply(c, Installation.units(BlogSchema.ALL,
                    List.of(new LimitDefinition("test", "calls", "1 day", 5, "UTC", 2))));
            st.execute("TRUNCATE blog_comment");
            worker.drain();
        }
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            // the install pins its own path, and leaves the migration's to what its transaction runs next
            c.setAutoCommit(false);
            st.execute(io.countercache.internal.InstallSql.schema());
            try (var rs = st.executeQuery("SHOW search_path")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("evil,public,pg_catalog");
            }
            c.rollback();
        }
        assertThat(db.queryRows("SELECT what, count(*) FROM evil.calls GROUP BY what")).as("look-alikes that ran").isEmpty();
        BlogSchema.assertExactAfterRollup(db);
    }
}
