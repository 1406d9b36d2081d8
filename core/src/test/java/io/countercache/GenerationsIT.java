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
 * The queue's generations (docs/architecture.md, "Rollup", Generations): take_generation, between rounds and in a
 * transaction of its own, folds the generation writers have left back into the queue and truncates it; one it cannot
 * lock at once, or whose deltas do not fold, it leaves to rounds, which claim it by rows; readers of stored + pending
 * see a take either whole or not at all, and never wait for a round. Each test waits for the clock to turn so that the
 * rows it wrote are in the generation a take may fold, and ends with every counter equal to its recount.
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

    /** n statements of one comment each: a statement's capture folds its own deltas, a take folds the statements'. */
    private static String statements(long article, int n) {
        return String.join("; ", java.util.Collections.nCopies(n, comments(article, 1)));
    }

    private static final String TAKE = "SELECT coalesce(sum(consumed), 0) FROM countercache.take_generation()";

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

    /**
     * Takes generation in s, in a transaction left open when open, and returns what the take consumed. Awaits its
     * writers' leaving first, and takes again in a later turn of the clock when the take left the generation alone:
     * on a loaded machine the clock may have turned once more before it, or another session (autovacuum) may have held
     * a lock on the generation, which the take's NOWAIT skips. The caller asserts that it was taken.
     */
    private long take(Session s, String generation, boolean open) throws Exception {
        long before = file(generation);
        for (int attempt = 1; ; attempt++) {
            awaitLeft(generation);
            if (open) s.run("BEGIN");
            long consumed = s.queryLong(TAKE);
            if (attempt == 5 || s.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)") != before) {
                return consumed;
            }
            if (open) s.run("ROLLBACK");
            Thread.sleep(1000); // past this turn's window, so that the next attempt waits for a later one
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
     * A take folds the generation writers left into the queue (one sum per counter and target) and truncates it, and
     * reports what the fold removed as consumed; it leaves a generation of more ids than max_rows alone. The round
     * after it applies the sums, and those of a target another transaction holds go back to the queue.
     */
    @Test
    void aTakeFoldsTheGenerationWritersLeftIntoTheQueueAndRoundsApplyTheSums() throws Exception {
        db.execute(statements(1, 8) + "; " + statements(2, 4));
        String generation = writtenGeneration();
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        Session app = sessions.open("app"), rollup = sessions.open("rollup");
        awaitLeft(generation);
        assertThat(rollup.queryLong("SELECT count(*) FROM countercache.take_generation(3)")).as("max_rows 3").isZero();
        assertThat(file(generation)).as("more ids than max_rows: left to rounds").isEqualTo(before);
        long consumed = take(rollup, generation, false);
        assertThat(file(generation)).as("the generation was truncated").isNotEqualTo(before);
        long sums = db.queryLong("SELECT count(*) FROM ONLY countercache.delta");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("all of them in the queue itself")
                .isEqualTo(sums).isLessThanOrEqualTo(queued / 4);
        assertThat(consumed).as("consumed: what the fold removed from the queue").isEqualTo(queued - sums);
        app.run("BEGIN; SELECT 1 FROM blog_article WHERE id = 2 FOR UPDATE");
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(8);
        assertThat(db.queryLong("SELECT count(*) FROM ONLY countercache.delta WHERE target_id = 2"))
                .as("the busy article's sums, back in the queue").isPositive();
        app.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isEqualTo(4);
    }

    /**
     * A sum that is no bigint stays as its deltas: the take moves them into the queue one by one and folds the rest,
     * and reports only what it folded as consumed. Here a key's two deltas of 2^63 - 1 in the generation, which two of
     * -(2^63 - 1) already in the queue cancel, so the round that claims all four applies 0.
     */
    @Test
    void aSumThatIsNoBigintStaysAsItsDeltasWhileTheRestFolds() throws Exception {
        db.execute(statements(1, 8));
        String generation = writtenGeneration();
        int counter = BlogSchema.ARTICLE_COMMENTS.id();
        db.execute("INSERT INTO " + generation + " (counter_id, target_id, delta) VALUES (" + counter + ", 3, "
                + Long.MAX_VALUE + "), (" + counter + ", 3, " + Long.MAX_VALUE + ");"
                + " INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (" + counter + ", 3, "
                + -Long.MAX_VALUE + "), (" + counter + ", 3, " + -Long.MAX_VALUE + ")");
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        Session rollup = sessions.open("rollup");
        long consumed = take(rollup, generation, false);
        assertThat(file(generation)).as("the generation was truncated").isNotEqualTo(before);
        assertThat(db.queryRows("SELECT count(*)::text, sum(delta::numeric)::text FROM ONLY countercache.delta"
                + " WHERE target_id = 3").get(0)).as("the key's deltas, each as it was").containsExactly("4", "0");
        assertThat(consumed).as("consumed: what the fold removed").isEqualTo(queued - db.queryLong(
                "SELECT count(*) FROM countercache.delta")).isPositive();
        rollup.run("SELECT countercache.rollup(1000000)");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 3")).isZero();
    }

    /**
     * A writer whose transaction wrote the generation and is still open keeps a take from folding it: the take does
     * not wait for it, nor does the round after it (it claims by rows), and the writer's rows are counted once it
     * commits. Without NOWAIT the take would wait for the writer.
     */
    @Test
    void aWriterStillOpenInTheGenerationKeepsATakeFromFoldingItAndNobodyWaits() throws Exception {
        Session writer = sessions.open("writer"), rollup = sessions.open("rollup");
        // committed rows and the open writer's in one generation: all early in one second
        awaitLeft(db.queryRows("SELECT 'delta_' || (1 - countercache.generation(clock_timestamp()))").get(0).get(0));
        db.execute(statements(2, 8));
        writer.run("BEGIN; " + comments(1, 4));
        assertThat(writer.queryLong("SELECT count(DISTINCT tableoid) FROM countercache.delta")).isEqualTo(1);
        String generation = writtenGeneration();
        long before = file(generation);
        awaitLeft(generation);
        assertThat(rollup.queryLong(TAKE)).isZero();
        rollup.run("SELECT countercache.rollup(100)");
        assertThat(file(generation)).as("not truncated while the writer is open").isEqualTo(before);
        writer.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(4);
    }

    /**
     * A reader that starts while a take holds a generation it has truncated waits for the take's commit, and then
     * sees the take's sums in the queue. exact() is VOLATILE so that its statement takes its snapshot after it has
     * locked the generation; STABLE, it read the snapshot of the statement that called it, older than the take, and
     * so the generation already empty and the queue without the sums: 0 instead of 4.
     */
    @Test
    void aReaderThatWaitedForATakeSeesTheSumsItMovedOutOfTheGeneration() throws Exception {
        db.execute(statements(1, 4));
        String generation = writtenGeneration();
        long before = file(generation);
        Session rollup = sessions.open("rollup"), reader = sessions.open("reader");
        take(rollup, generation, true);
        assertThat(rollup.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)"))
                .as("truncated by the open take").isNotEqualTo(before);
        Step read = reader.start("SELECT value::bigint FROM countercache.exact(" + BlogSchema.ARTICLE_COMMENTS.id()
                + ", ARRAY[1]::bigint[])");
        sessions.awaitWaiting(reader);
        rollup.run("COMMIT");
        assertThat(read.await().get(0).get(0)).as("exact, once the take committed").isEqualTo("4");
        assertExact();
    }

    /**
     * A round in progress, however long, keeps no reader of the queue waiting: queue_state() and exact() read at
     * once, and exact() counts the round's deltas as pending until it commits. A round that held a generation whole
     * while it applied (as rounds once did) kept them waiting for as long as it ran: a worker's metrics() hung
     * behind a round stalled mid-batch.
     */
    @Test
    void aRoundInProgressKeepsNoReaderOfTheQueueWaiting() throws Exception {
        db.execute(statements(1, 8));
        String generation = writtenGeneration();
        Session rollup = sessions.open("rollup"), reader = sessions.open("reader");
        long before = file(generation);
        long depth = reader.queryLong("SELECT depth FROM countercache.queue_state()");
        take(rollup, generation, false);
        assertThat(file(generation)).as("taken").isNotEqualTo(before);
        rollup.run("BEGIN; SELECT countercache.rollup(100)");
        assertThat(rollup.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).as("in the round").isEqualTo(8);
        assertThat(reader.queryLong("SELECT depth FROM countercache.queue_state()")).as("the sums, still pending")
                .isPositive().isLessThan(depth);
        assertThat(exact(reader, 1)).as("exact, beside the round").isEqualTo(8);
        rollup.run("COMMIT");
        assertThat(exact(reader, 1)).as("exact, after the round").isEqualTo(8);
        assertExact();
    }

    /**
     * A round beside a take waits for it on the claim row, as beside a round claiming alone, and then claims: its
     * check of whether the queue is empty does not wait for the generation's lock (it failed with the round's 200 ms
     * lock timeout when it did).
     */
    @Test
    void aRoundBesideATakeWaitsForItThenClaims() throws Exception {
        db.execute(statements(1, 4));
        String generation = writtenGeneration();
        long before = file(generation);
        Session take = sessions.open("take"), beside = sessions.open("beside");
        take(take, generation, true);
        assertThat(take.queryLong("SELECT pg_relation_filenode('" + generation + "'::regclass)"))
                .as("truncated by the open take").isNotEqualTo(before);
        db.execute(comments(2, 2));
        Step late = beside.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(beside);
        Thread.sleep(400);   // longer than a round's lock timeout
        take.run("COMMIT");
        assertThat(Long.parseLong(late.await().get(0).get(0))).as("deltas the round applied").isPositive();
        assertExact();
    }

    /**
     * A round that waits for a lone round's commit holds no lock on a generation meanwhile: a lock on it would keep the
     * next take from folding it (two workers drained 1,000,000 deltas at 135,000/s against one worker's 1,000,000/s
     * when the waiting round held its look at the queue).
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
     * A REPEATABLE READ transaction whose snapshot is older than a take that truncated a generation cannot read
     * stored + pending right (TRUNCATE is not MVCC-safe): exact() and drift() fail with a serialization failure,
     * which such transactions retry; without the check exact() returned 0 where 4 was right.
     */
    @Test
    void aRepeatableReadSnapshotOlderThanATruncatedGenerationIsToldToRetry() throws Exception {
        db.execute(statements(1, 4));
        String generation = writtenGeneration();
        Session reader = sessions.open("reader"), rollup = sessions.open("rollup");
        reader.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM blog_article");
        long before = file(generation);
        take(rollup, generation, false);
        assertThat(file(generation)).as("truncated").isNotEqualTo(before);
        assertThatThrownBy(() -> exact(reader, 1)).isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("40001"))
                .hasMessageContaining("countercache.exact read the queue after a rollup round changed it");
        reader.run("ROLLBACK; BEGIN ISOLATION LEVEL REPEATABLE READ");
        assertThat(exact(reader, 1)).as("in a snapshot taken after the take").isEqualTo(4);
        reader.run("COMMIT");
        assertExact();
    }

    /**
     * Whether a generation folds is estimated from a sample before a take locks it, so one that does not (here one delta
     * per counter and key, about 48,000 of them: more than the sample reads) is not folded in vain under the lock that
     * writers coming back to it would wait for. The take remembers it even while another session holds a lock on the
     * generation: a take that tried the fold would have found its NOWAIT refused and remembered nothing.
     */
    @Test
    void aGenerationThatWouldNotFoldIsToldFromASampleWithoutLockingIt() throws Exception {
        db.execute("INSERT INTO blog_article (id) SELECT g FROM generate_series(4, 12003) g");
        db.execute(comments(1, 1).replace("SELECT 1, 1,", "SELECT 1, a.id,").replace("FROM generate_series(1, 1)",
                "FROM blog_article a"));
        String generation = writtenGeneration();
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        assertThat(queued).as("more rows than the sample reads").isGreaterThan(20_000);
        Session reader = sessions.open("reader"), rollup = sessions.open("rollup");
        awaitLeft(generation);
        reader.run("BEGIN; SELECT count(*) FROM ONLY " + generation);   // a lock that refuses a take's NOWAIT
        assertThat(rollup.queryLong(TAKE)).isZero();
        assertThat(rollup.run("SELECT current_setting('countercache.too_many_sums', true)").get(0).get(0))
                .as("remembered from the sample, without the lock").startsWith(before + ":");
        reader.run("COMMIT");
        assertThat(rollup.queryLong(TAKE)).as("remembered: not tried again").isZero();
        assertThat(file(generation)).as("not truncated").isEqualTo(before);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("nothing moved").isEqualTo(queued);
        rollup.run("SELECT countercache.rollup(1000000)");
        assertExact();
    }

    /**
     * A generation whose deltas do not fold (fewer than 4 to a sum) is left to rounds, which claim it by rows, and the
     * session remembers it, so as not to fold it again, until more deltas have been queued since than it held: then
     * the next take folds it.
     */
    @Test
    void aGenerationWhoseDeltasDoNotFoldIsLeftToRoundsUntilMoreArrive() throws Exception {
        db.execute(comments(1, 1).replace("SELECT 1, 1,", "SELECT 1, a.id,").replace("FROM generate_series(1, 1)",
                "FROM blog_article a"));
        String generation = writtenGeneration();
        long before = file(generation);
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        Session rollup = sessions.open("rollup");
        awaitLeft(generation);
        assertThat(rollup.queryLong(TAKE)).isZero();
        assertThat(file(generation)).as("not truncated").isEqualTo(before);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).as("nothing moved").isEqualTo(queued);
        rollup.run("SELECT countercache.rollup(2)");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isEqualTo(queued - 2);
        // the writers come back to the generation: more deltas than it held, which fold
        String writing = generation.endsWith("0") ? "delta_1" : "delta_0";
        awaitLeft(writing);
        db.execute(statements(1, 2 * (int) queued));
        assertThat(writtenGeneration()).isEqualTo(generation);
        assertThat(take(rollup, generation, false)).isPositive();
        assertThat(file(generation)).as("truncated once more deltas arrived").isNotEqualTo(before);
        assertExact();
    }
}
