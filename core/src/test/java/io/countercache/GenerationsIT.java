package io.countercache;

import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The queue's generations (docs/architecture.md, "Rollup", Generations): a round that holds the generation writers
 * have left takes it whole and truncates it; one it cannot lock at once it claims by rows; readers of stored + pending
 * see a round that truncated a generation either whole or not at all. Each test waits for the clock to turn so that
 * the rows it wrote are in the generation a round may take, and ends with every counter equal to its recount.
 */
class GenerationsIT {

    private TestDatabase db;
    private Sessions sessions;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(GenerationsIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2), (3)");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        sessions.close();
    }

    private static String comments(long article, int n) {
        return "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) SELECT 1, " + article
                + ", 'public', 2 FROM generate_series(1, " + n + ")";
    }

    private void assertExact() {
        assertThat(db.queryRows("SELECT counter_id, target_id, delta, error FROM countercache.dead_letter"))
                .as("dead letters").isEmpty();
        BlogSchema.assertExactAfterRollup(db);
    }

    /** The generation that holds the queued rows of comments (one statement wrote them, so one generation). */
    private String writtenGeneration() {
        return db.queryRows("SELECT DISTINCT tableoid::regclass::text FROM countercache.delta"
                + " WHERE tableoid <> 'countercache.delta'::regclass").get(0).get(0);
    }

    /**
     * Waits until writers have left generation (the clock names the other one), 0.15 to 0.6 s past the turn, so that
     * a round started now may take it whole.
     */
    private void awaitLeft(String generation) throws InterruptedException {
        String writing = generation.endsWith("0") ? "1" : "0";
        while (!db.queryRows("SELECT countercache.generation(t)::text || ','"
                + " || (date_part('epoch', t) - floor(date_part('epoch', t)) BETWEEN 0.15 AND 0.6)"
                + " FROM clock_timestamp() t").get(0).get(0).equals(writing + ",true")) {
            Thread.sleep(20);
        }
    }

    private long file(String generation) {
        return db.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)");
    }

    private long exact(Session s, long article) throws Exception {
        return s.queryLong("SELECT value::bigint FROM countercache.exact(" + BlogSchema.ARTICLE_COMMENTS.id() + ", ARRAY["
                + article + "]::bigint[])");
    }

    /**
     * A round takes the generation writers left whole: it truncates it (a new file) and applies every delta it held,
     * and the sums of a target another transaction holds go back to the queue, after the truncate, in their place.
     */
    @Test
    void aRoundTakesTheGenerationWritersLeftWholeAndHandsBackBusySums() throws Exception {
        db.execute(comments(1, 5) + "; " + comments(2, 3));
        String generation = writtenGeneration();
        long before = file(generation);
        Session app = sessions.open("app"), rollup = sessions.open("rollup");
        app.run("BEGIN; SELECT 1 FROM blog_article WHERE id = 2 FOR UPDATE");
        awaitLeft(generation);
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(file(generation)).as("the generation was truncated").isNotEqualTo(before);
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(5);
        assertThat(db.queryLong("SELECT count(*) FROM ONLY countercache.delta WHERE target_id = 2"))
                .as("the busy article's sums, back in the queue").isPositive();
        app.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isEqualTo(3);
    }

    /**
     * A writer whose transaction wrote the generation and is still open keeps a round from taking it whole: the
     * round does not wait for it (it claims by rows), and the writer's rows are counted once it commits. Without
     * NOWAIT the round would wait for the writer.
     */
    @Test
    void aWriterStillOpenInTheGenerationKeepsItFromBeingTakenAndTheRoundDoesNotWait() throws Exception {
        Session writer = sessions.open("writer"), rollup = sessions.open("rollup");
        // a committed row and the open writer's in one generation: both early in one second
        awaitLeft(db.queryRows("SELECT 'delta_' || (1 - countercache.generation(clock_timestamp()))").get(0).get(0));
        db.execute(comments(2, 1));
        writer.run("BEGIN; " + comments(1, 4));
        assertThat(writer.queryLong("SELECT count(DISTINCT tableoid) FROM countercache.delta")).isEqualTo(1);
        String generation = writtenGeneration();
        long before = file(generation);
        awaitLeft(generation);
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(file(generation)).as("not truncated while the writer is open").isEqualTo(before);
        writer.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(4);
    }

    /**
     * A reader that starts while a round holds a generation it has truncated waits for the round's commit, and then
     * sees the round's sums in the column. exact() is VOLATILE so that its statement takes its snapshot after it has
     * locked the generation; STABLE, it read the snapshot of the statement that called it, older than the round, and
     * so the column without the round's sums and the generation already empty: 0 instead of 3.
     */
    @Test
    void aReaderThatWaitedForARoundSeesTheSumsTheRoundMovedOutOfTheGeneration() throws Exception {
        db.execute(comments(1, 3));
        String generation = writtenGeneration();
        long before = file(generation);
        Session rollup = sessions.open("rollup"), reader = sessions.open("reader");
        awaitLeft(generation);
        rollup.run("BEGIN; SELECT countercache.rollup(100)");
        assertThat(rollup.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)"))
                .as("truncated by the open round").isNotEqualTo(before);
        Step read = reader.start("SELECT value::bigint FROM countercache.exact(" + BlogSchema.ARTICLE_COMMENTS.id()
                + ", ARRAY[1]::bigint[])");
        sessions.awaitWaiting(reader);
        rollup.run("COMMIT");
        assertThat(read.await().get(0).get(0)).as("exact, once the round committed").isEqualTo("3");
        assertExact();
    }

    /**
     * A round beside a lone round that holds a generation whole waits for it on the claim row, as beside any lone
     * round, and then claims: its check of whether the queue is empty does not wait for the generation's lock (it
     * failed with the round's 200 ms lock timeout when it did).
     */
    @Test
    void aRoundBesideARoundHoldingAGenerationWaitsForItThenClaims() throws Exception {
        db.execute(comments(1, 3));
        String generation = writtenGeneration();
        long before = file(generation);
        Session lone = sessions.open("lone"), beside = sessions.open("beside");
        awaitLeft(generation);
        lone.run("BEGIN; SELECT countercache.rollup(100)");
        assertThat(lone.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)"))
                .as("truncated by the open round").isNotEqualTo(before);
        db.execute(comments(2, 2));
        Step late = beside.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(beside);
        Thread.sleep(400);   // longer than a round's lock timeout
        lone.run("COMMIT");
        assertThat(Long.parseLong(late.await().get(0).get(0))).as("deltas the second round applied").isPositive();
        assertExact();
    }

    /**
     * A round that waits for a lone round's commit holds no lock on a generation meanwhile: a lock on it would keep the
     * lone round, or the next, from taking the generation whole (two workers drained 1,000,000 deltas at 135,000/s
     * against one worker's 1,000,000/s when the waiting round held its look at the queue).
     */
    @Test
    void aRoundWaitingForALoneRoundHoldsNoLockOnTheGenerations() throws Exception {
        db.execute(comments(1, 2));
        Session lone = sessions.open("lone"), waiting = sessions.open("waiting");
        lone.run("BEGIN; SELECT FROM countercache.queue_claim FOR UPDATE");   // as a round claiming alone
        Step round = waiting.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(waiting);
        assertThat(db.queryRows("SELECT relation::regclass::text FROM pg_locks WHERE pid = " + waiting.pid()
                + " AND relation IN ('countercache.delta_0'::regclass, 'countercache.delta_1'::regclass)"))
                .as("locks of the waiting round on the generations").isEmpty();
        lone.run("COMMIT");
        round.await();
        assertExact();
    }

    /**
     * A REPEATABLE READ transaction whose snapshot is older than a round that truncated a generation cannot read
     * stored + pending right (TRUNCATE is not MVCC-safe): exact() and drift() fail with a serialization failure,
     * which such transactions retry; without the check exact() returned 0 where 2 was right.
     */
    @Test
    void aRepeatableReadSnapshotOlderThanATruncatedGenerationIsToldToRetry() throws Exception {
        db.execute(comments(1, 2));
        String generation = writtenGeneration();
        Session reader = sessions.open("reader"), rollup = sessions.open("rollup");
        reader.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM blog_article");
        awaitLeft(generation);
        long before = file(generation);
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(file(generation)).as("truncated").isNotEqualTo(before);
        assertThatThrownBy(() -> exact(reader, 1)).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("40001"))
                .hasMessageContaining("countercache.exact read the queue after a rollup round changed it");
        reader.run("ROLLBACK; BEGIN ISOLATION LEVEL REPEATABLE READ");
        assertThat(exact(reader, 1)).as("in a snapshot taken after the round").isEqualTo(2);
        reader.run("COMMIT");
        assertExact();
    }

    /**
     * A generation that folds into more sums than the round may apply, where 4 deltas or more fold into a sum, is
     * taken whole all the same: the round applies the oldest sums and puts the others back in the queue, folded.
     */
    @Test
    void aGenerationOfMoreSumsThanARoundMayApplyIsTakenWholeWhereItsDeltasFold() throws Exception {
        // one statement a comment: a statement's capture folds its own deltas already
        db.execute(String.join("; ", java.util.Collections.nCopies(8, comments(1, 1) + "; " + comments(2, 1) + "; "
                + comments(3, 1))));
        String generation = writtenGeneration();
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        Session rollup = sessions.open("rollup");
        awaitLeft(generation);
        long depth = db.queryLong("SELECT depth FROM countercache.queue_state()");
        long consumed = rollup.queryLong("SELECT countercache.rollup(2)");
        assertThat(file(generation)).as("truncated").isNotEqualTo(before);
        assertThat(consumed).as("consumed: what left the queues, the folds of the sums put back included")
                .isEqualTo(depth - db.queryLong("SELECT depth FROM countercache.queue_state()"));
        long left = db.queryLong("SELECT count(*) FROM ONLY countercache.delta");
        assertThat(left).as("the sums left, back in the queue").isPositive().isLessThan(queued / 4);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isEqualTo(left);
        assertExact();
    }

    /**
     * A generation that folds into more sums than the round may apply, fewer than 4 deltas to a sum, is claimed by
     * rows (max_deltas of them), not truncated; the rest waits for later rounds.
     */
    @Test
    void aGenerationOfMoreSumsThanARoundMayApplyIsClaimedByRows() throws Exception {
        db.execute(comments(1, 1).replace("SELECT 1, 1,", "SELECT 1, a.id,").replace("FROM generate_series(1, 1)",
                "FROM blog_article a"));
        String generation = writtenGeneration();
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        Session rollup = sessions.open("rollup");
        awaitLeft(generation);
        rollup.run("SELECT countercache.rollup(2)");
        assertThat(file(generation)).as("not truncated").isEqualTo(before);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isEqualTo(queued - 2);
        // the session remembers it, until rounds have claimed it down to 2 rows: then it is taken whole
        while (db.queryLong("SELECT count(*) FROM ONLY " + generation) > 2) {
            rollup.run("SELECT countercache.rollup(2)");
        }
        assertThat(file(generation)).as("not truncated while it held more than 2 rows").isEqualTo(before);
        awaitLeft(generation);
        rollup.run("SELECT countercache.rollup(2)");
        assertThat(file(generation)).as("truncated once it held 2 rows at most").isNotEqualTo(before);
        assertExact();
    }
}
