package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Min and max counters ({@code BlogSchema.ARTICLE_MOST_LIKES}, a max of public comments' likes, and
 * {@code ORDER_CHEAPEST}, a min of numeric prices over uuid keys): every transition ends equal to the extreme of the
 * source, NULL when no row counts; exact reads, drift and the recount see them; the checks refuse what cannot be kept;
 * and the interleavings of the argument in "Extremes" (sql/rollup.sql) end exact.
 */
class ExtremesIT {

    private static final String MOST_LIKES = "SELECT most_likes FROM blog_article WHERE id = 1";

    private TestDatabase db;
    private Sessions sessions;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(ExtremesIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        sessions.close();
    }

    private static String comment(long article, String status, int likes) {
        return "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, " + article + ", '"
                + status + "', " + likes + ");";
    }

    private Long mostLikes() {
        List<List<String>> rows = db.queryRows(MOST_LIKES);
        return rows.get(0).get(0) == null ? null : Long.valueOf(rows.get(0).get(0));
    }

    private String exact(long article) {
        return db.queryRows("SELECT value::text FROM countercache.exact(" + BlogSchema.ARTICLE_MOST_LIKES.id()
                + ", ARRAY[" + article + "]::bigint[])").get(0).get(0);
    }

    @Test
    void everyTransitionEndsAtTheExtremeOfTheSource() throws Exception {
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).as("no comment yet").isNull();
        db.execute(comment(1, "public", 5) + comment(1, "public", 10) + comment(1, "private", 50));
        assertThat(exact(1)).as("exact before the rollup").isEqualTo("10");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).isEqualTo(10);

        db.execute("UPDATE blog_comment SET likes = 3 WHERE likes = 10");              // the extreme goes down
        assertThat(exact(1)).isEqualTo("5");
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE likes = 50"); // a row starts counting
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).isEqualTo(50);
        db.execute("UPDATE blog_comment SET article_id = 2 WHERE likes = 50");         // moved to another target
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).isEqualTo(5);
        assertThat(db.queryLong("SELECT most_likes FROM blog_article WHERE id = 2")).isEqualTo(50);
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes)"
                + " SELECT 1, 1 + i % 2, 'public', i FROM generate_series(1, 1000) i");  // bulk
        BlogSchema.assertExactAfterRollup(db);
        db.execute("DELETE FROM blog_comment WHERE likes >= 900");
        BlogSchema.assertExactAfterRollup(db);
        sessions.open("rolled back").run("BEGIN; DELETE FROM blog_comment; ROLLBACK");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("a rolled back delete").isZero();
        db.execute("TRUNCATE blog_comment");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).as("no row counts any more").isNull();

        db.execute("INSERT INTO shop_order (id) VALUES ('00000000-0000-0000-0000-000000000001');"
                + "INSERT INTO shop_line (order_id, amount, price) VALUES ('00000000-0000-0000-0000-000000000001', 1, 9.99),"
                + " ('00000000-0000-0000-0000-000000000001', 1, 0.50), ('00000000-0000-0000-0000-000000000001', 1, NULL)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows("SELECT cheapest_line::text FROM shop_order")).containsExactly(List.of("0.50"));
        db.execute("INSERT INTO blog_article (id) VALUES (5); UPDATE blog_article SET id = 6 WHERE id = 5");  // a key changes
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void driftShowsAWrongExtremeAndTheRecountCorrectsIt() {
        db.execute(comment(1, "public", 4) + comment(2, "public", 8));
        BlogSchema.assertExactAfterRollup(db);
        db.execute("UPDATE blog_article SET most_likes = 99 WHERE id = 1; UPDATE blog_article SET most_likes = NULL WHERE id = 2");
        assertThat(db.queryRows("SELECT key, stored::text, pending::text, exact::text FROM countercache.drift("
                + BlogSchema.ARTICLE_MOST_LIKES.id() + ")"))
                .containsExactly(List.of("1", "99", "0", "4"), java.util.Arrays.asList("2", null, "0", "8"));
        assertThat(db.queryLong("SELECT countercache.recount(" + BlogSchema.ARTICLE_MOST_LIKES.id() + ")")).isEqualTo(2);
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows("SELECT key FROM countercache.drift(" + BlogSchema.ARTICLE_MOST_LIKES.id() + ")")).isEmpty();
    }

    @Test
    void whatCannotBeKeptIsRefusedWithTheFix() throws Exception {
        CounterDefinition noIndex = new CounterDefinition("User.mostLikes", BlogSchema.USER, "id", KeyType.BIGINT,
                "most_likes", "integer", BlogSchema.COMMENT, "creator_id", null, null, Strategy.QUEUE, 0, null,
                new CounterDefinition.Extreme("max", "likes"));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(noIndex))).hasMessageContaining(
                "@CounterCache on User.mostLikes: public.blog_comment has no index on (creator_id, likes), by which the"
                        + " rollup recomputes a max")
                .hasMessageContaining("CREATE INDEX ON public.blog_comment (creator_id, likes)");
        db.execute("CREATE INDEX ON blog_comment (creator_id, likes)");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(noIndex.withStrategy(Strategy.DIRECT, 0))))
                .hasMessageContaining("a max cannot use strategy direct")
                .hasMessageContaining("use strategy QUEUE or UNLOGGED");
        CounterDefinition text = new CounterDefinition("User.lastMessage", BlogSchema.USER, "id", KeyType.BIGINT,
                "last_message", "text", BlogSchema.COMMENT, "creator_id", null, null, Strategy.QUEUE, 0, null,
                new CounterDefinition.Extreme("max", "message"));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(text)))
                .hasMessageContaining("max column public.blog_comment.message is text");
        db.execute("ALTER TABLE blog_user ADD COLUMN most_likes bigint");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(noIndex)))
                .hasMessageContaining("counter column public.blog_user.most_likes is bigint, the max of a integer");
        db.execute("ALTER TABLE blog_user DROP COLUMN most_likes;"
                + " ALTER TABLE blog_user ADD COLUMN most_likes integer NOT NULL DEFAULT 0");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(noIndex)))
                .as("a target with no comments, or whose last one goes, could not be written")
                .hasMessageContaining("counter column public.blog_user.most_likes is NOT NULL, and the max of no rows"
                        + " is NULL")
                .hasMessageContaining("ALTER TABLE public.blog_user ALTER COLUMN most_likes DROP NOT NULL");
        db.execute("ALTER TABLE blog_user ALTER COLUMN most_likes DROP NOT NULL");
        BlogSchema.install(db, List.of(noIndex));
    }

    /** The extreme row deleted while a new extreme is inserted, each committed around a round that sees neither. */
    @Test
    void theExtremeDeletedWhileANewOneIsInserted() throws Exception {
        db.execute(comment(1, "public", 10) + comment(1, "public", 5));
        BlogSchema.assertExactAfterRollup(db);
        Session deleter = sessions.open("deleter"), inserter = sessions.open("inserter"), rollup = sessions.open("rollup");
        deleter.run("BEGIN; DELETE FROM blog_comment WHERE likes = 10");
        inserter.run("BEGIN; " + comment(1, "public", 7));
        rollup.run("SELECT countercache.rollup(100)");
        deleter.run("COMMIT");
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(mostLikes()).as("the extreme is gone, the new one not yet committed").isEqualTo(5);
        inserter.run("COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(mostLikes()).isEqualTo(7);
    }

    /** The same for a min over uuid keys: the cheapest line deleted while a cheaper one than the rest is inserted. */
    @Test
    void theCheapestLineDeletedWhileANewCheapestIsInserted() throws Exception {
        String order = "'00000000-0000-0000-0000-000000000001'";
        String cheapest = "SELECT cheapest_line::text FROM shop_order WHERE id = " + order;
        db.execute("INSERT INTO shop_order (id) VALUES (" + order + ");"
                + " INSERT INTO shop_line (order_id, price) VALUES (" + order + ", 1.00), (" + order + ", 5.00)");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows(cheapest)).containsExactly(List.of("1.00"));
        Session deleter = sessions.open("deleter"), inserter = sessions.open("inserter"), rollup = sessions.open("rollup");
        deleter.run("BEGIN; DELETE FROM shop_line WHERE price = 1.00");
        inserter.run("BEGIN; INSERT INTO shop_line (order_id, price) VALUES (" + order + ", 3.00)");
        rollup.run("SELECT countercache.rollup(100)");
        deleter.run("COMMIT");
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(db.queryRows(cheapest)).as("the cheapest is gone, the new one not yet committed")
                .containsExactly(List.of("5.00"));
        inserter.run("COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryRows(cheapest)).containsExactly(List.of("3.00"));
    }

    /**
     * The argument's own interleaving: a round pauses inside the statement that locks its rows, holding a snapshot
     * taken before a writer deletes the extreme; meanwhile another round consumes that delete's touch and stores the
     * new extreme. The paused round then locks the row (the other round's version) and must not write the extreme
     * its old snapshot sees. With the lock and the recompute in one statement it writes 10 over 5, and the counter
     * stays wrong with nothing queued.
     */
    @Test
    void aRoundThatLocksAfterAnotherRoundRecomputesFromAfterItsLock() throws Exception {
        db.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'countercache_worker') THEN"
                + " CREATE ROLE countercache_worker; END IF; END $$;" + RolesIT.script("worker")
                + "CREATE FUNCTION pause() RETURNS boolean LANGUAGE sql SET lock_timeout = 0"
                + " AS $$ SELECT pg_advisory_lock_shared(7) IS NOT NULL AND pg_advisory_unlock_shared(7) $$;"
                + "GRANT EXECUTE ON FUNCTION pause() TO countercache_worker;"
                + "ALTER TABLE blog_article ENABLE ROW LEVEL SECURITY;"      // a pause inside the round's statement
                + "CREATE POLICY paused ON blog_article TO countercache_worker USING (pause()) WITH CHECK (true);"
                + comment(1, "public", 10) + comment(1, "public", 5));
        BlogSchema.assertExactAfterRollup(db);
        db.execute(comment(1, "public", 1));            // a touch for the paused round to claim
        Session holder = sessions.open("holder"), rollup = sessions.open("rollup");
        sessions.open("in flight").run(BlogSchema.A_ROUND_IN_FLIGHT);   // so that the two rounds overlap
        holder.run("SELECT pg_advisory_lock(7)");
        rollup.run("SET ROLE countercache_worker");
        Step round = rollup.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(rollup);                  // paused on article 1, its statement's snapshot taken
        db.execute("DELETE FROM blog_comment WHERE likes = 10");
        assertThat(db.queryLong("SELECT countercache.rollup(100)")).as("another round, the delete's deltas").isPositive();
        assertThat(mostLikes()).isEqualTo(5);
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();
        assertThat(mostLikes()).as("after the paused round").isEqualTo(5);
        BlogSchema.assertExactAfterRollup(db);
    }
}
