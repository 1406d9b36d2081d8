package io.countercache;

import io.countercache.spi.CounterDefinition;
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
 * Each interleaving that once left a counter permanently wrong, or made a rollup wait, scripted step by step over
 * several sessions (see docs/architecture.md, "Maintenance is a correction" and "Rollup"). Every test ends with every
 * counter equal to its recount and no dead letter, and fails if a step that must not wait for a lock does.
 */
class InterleavingsIT {

    private TestDatabase db;
    private Sessions sessions;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(InterleavingsIT.class);
        BlogSchema.create(db);
        db.execute("ALTER TABLE shelf ADD CONSTRAINT books_not_negative CHECK (books >= 0);"
                + "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                + "INSERT INTO shop VALUES (1, 's'); INSERT INTO product VALUES (1, 1, 'p');");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        sessions.close();
    }

    private static String comment(long article) {
        return "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, " + article
                + ", 'public', 2)";
    }

    private static String recount(CounterDefinition c) {
        return "SELECT countercache.recount(" + c.id() + ")";
    }

    private void assertExact() {
        assertThat(db.queryRows("SELECT counter_id, target_id, delta, error FROM countercache.dead_letter"))
                .as("dead letters").isEmpty();
        BlogSchema.assertExactAfterRollup(db);
    }

    @Test
    void aRecountOverlappingARollupThatLeftABusyTargetQueuedCountsItOnce() throws Exception {
        Session locker = sessions.open("locker"), writer = sessions.open("writer");
        Session rollup = sessions.open("rollup"), maintenance = sessions.open("maintenance");
        writer.run(comment(1));
        locker.run("BEGIN; SELECT 1 FROM blog_article WHERE id = 1 FOR UPDATE");
        rollup.run("BEGIN; SELECT countercache.rollup(100)");        // the article is busy: its deltas stay queued
        Step recount = maintenance.start(recount(BlogSchema.ARTICLE_COMMENTS));
        rollup.run("COMMIT");
        recount.await();
        locker.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(1);
    }

    /**
     * Two rounds at once over comments on two articles, interleaved in the queue, with batches of 10 while there are
     * 20 comments. In lanes (lanes = 2, the articles in different lanes) the second round applies the other article's
     * deltas while the first holds its own; without lanes (lanes = 1) the first claims alone, and the second waits
     * for its commit, then applies the rest. The comments are private, so that no count of distinct values moves: a
     * round applies the deltas those derive whatever their lane, which would lock the other article too.
     */
    @Test
    void aSecondRoundInLanesAppliesOtherTargetsInsteadOfHandingBackTheFirstRoundsRows() throws Exception {
        db.execute("INSERT INTO blog_article (id) SELECT g FROM generate_series(3, 10) g");
        long other = db.queryLong("SELECT min(a.id) FROM blog_article a"
                + " WHERE countercache.lane_of(a.id, NULL, 2) <> countercache.lane_of(1, NULL, 2)");
        assertThat(secondRoundConsumes(2, other)).as("in lanes").isPositive();
        assertExact();
        assertThat(secondRoundConsumes(1, other)).as("without lanes, after the first").isPositive();
        assertExact();
    }

    private long secondRoundConsumes(int lanes, long other) throws Exception {
        Session first = sessions.open("first " + lanes), second = sessions.open("second " + lanes);
        for (int i = 0; i < 10; i++) {
            db.execute(comment(1).replace("'public'", "'private'") + "; " + comment(other).replace("'public'", "'private'"));
        }
        String round = "SELECT coalesce(sum(r.consumed), 0) FROM countercache.rollup_report(10, false, " + lanes + ") r";
        first.run("BEGIN");
        assertThat(first.queryLong(round)).isPositive();
        Step late = second.start(round);
        if (lanes == 1) {
            sessions.awaitWaiting(second);         // for the round claiming alone
            first.run("COMMIT");
            return Long.parseLong(late.await().get(0).get(0));
        }
        long consumed = Long.parseLong(late.await().get(0).get(0));   // never waits for the first round
        first.run("COMMIT");
        return consumed;
    }

    @Test
    void aRecountNeverMakesAWriterWait() throws Exception {
        Session maintenance = sessions.open("maintenance"), writer = sessions.open("writer");
        writer.run(comment(1));
        db.execute("UPDATE blog_article SET total_comments = 7 WHERE id = 1");   // drift, by hand
        maintenance.run("BEGIN; " + recount(BlogSchema.ARTICLE_COMMENTS));
        writer.run(comment(1));                                      // fails if the recount holds writers back
        writer.run("DELETE FROM blog_comment WHERE id = (SELECT min(id) FROM blog_comment)");
        maintenance.run("COMMIT");
        assertExact();
    }

    @Test
    void twoRecountsOfOneCounterCorrectADriftOnce() throws Exception {
        Session first = sessions.open("first"), second = sessions.open("second");
        db.execute(comment(1) + "; SELECT countercache.rollup(100); UPDATE blog_article SET total_comments = 5 WHERE id = 1");
        first.run("BEGIN; " + recount(BlogSchema.ARTICLE_COMMENTS));
        Step late = second.start(recount(BlogSchema.ARTICLE_COMMENTS));
        sessions.awaitWaiting(second);                               // the counter's recount lock
        first.run("COMMIT");
        assertThat(late.await().get(0).get(0)).as("keys the second recount corrected").isEqualTo("0");
        assertExact();
    }

    @Test
    void aTargetDeletedAndInsertedAgainWithTheSameKeyStartsFromItsOwnRows() throws Exception {
        Session app = sessions.open("app");
        db.execute(comment(1) + ";" + comment(1) + ";" + comment(1) + "; SELECT countercache.rollup(100);" + comment(1));
        // the cascade queues -4 for the article; its row hands back the 3 it held
        app.run("DELETE FROM blog_article WHERE id = 1");
        app.run("INSERT INTO blog_article (id) VALUES (1)");
        app.run(comment(1));
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(1);
    }

    @Test
    void aTargetInsertedAfterItsSourceRowsCountsThemAndKeepsThemAcrossADelete() throws Exception {
        db.execute("INSERT INTO book (shelf_id) SELECT 7 FROM generate_series(1, 3)");
        assertThat(db.queryLong("SELECT countercache.rollup(100)")).isEqualTo(1);   // no shelf 7: an orphan
        db.execute("INSERT INTO shelf VALUES (7)");
        assertExact();
        assertThat(db.queryLong("SELECT books FROM shelf WHERE id = 7")).isEqualTo(3);
        db.execute("DELETE FROM shelf WHERE id = 7; SELECT countercache.rollup(100);"
                + "INSERT INTO book (shelf_id) VALUES (7); SELECT countercache.rollup(100); INSERT INTO shelf VALUES (7)");
        assertExact();
        assertThat(db.queryLong("SELECT books FROM shelf WHERE id = 7")).isEqualTo(4);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.orphan")).as("orphans left").isZero();
    }

    @Test
    void aBusyTargetsDeltasKeepTheirPlaceBeforeALaterOppositeDelta() throws Exception {
        Session locker = sessions.open("locker"), rollup = sessions.open("rollup");
        db.execute("INSERT INTO shelf VALUES (1); INSERT INTO book (shelf_id) VALUES (1);"   // +1
                + "DELETE FROM book");                                                        // -1, after it
        locker.run("BEGIN; SELECT 1 FROM shelf WHERE id = 1 FOR UPDATE");
        rollup.run("SELECT countercache.rollup(1)");                 // busy: +1 stays where it was, before -1
        locker.run("COMMIT");
        rollup.run("SELECT countercache.rollup(1)");                 // one at a time, in order: 1, then 0
        rollup.run("SELECT countercache.rollup(1)");
        assertExact();
    }

    /**
     * What rounds report as consumed adds up to the rows that left the queue, busy targets included: a busy shelf's
     * sum of 3 deltas goes back as one row, so the round that hands it back counts the 2 it folded away, and the round
     * that applies it counts 1. Without that the rounds fall 2 short.
     */
    @Test
    void whatRoundsConsumeAddsUpToTheRowsThatLeftTheQueueWhenATargetWasBusy() throws Exception {
        Session locker = sessions.open("locker"), rollup = sessions.open("rollup");
        db.execute("INSERT INTO shelf VALUES (1), (2)");
        db.execute("INSERT INTO book (shelf_id) VALUES (1); INSERT INTO book (shelf_id) VALUES (1);"
                + " INSERT INTO book (shelf_id) VALUES (1); INSERT INTO book (shelf_id) VALUES (2)");
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        assertThat(queued).isEqualTo(4);
        locker.run("BEGIN; SELECT 1 FROM shelf WHERE id = 1 FOR UPDATE");
        assertThat(rollup.queryLong("SELECT countercache.rollup(1000)")).as("shelf 2's delta, and the 2 folded")
                .isEqualTo(3);
        assertThat(db.queryRows("SELECT target_id::text, delta::text FROM countercache.delta"))
                .as("shelf 1's sum, back in the queue").containsExactly(List.of("1", "3"));
        locker.run("COMMIT");
        assertThat(rollup.queryLong("SELECT countercache.rollup(1000)")).as("the sum, as one").isEqualTo(1);
        assertThat(db.queryLong("SELECT books FROM shelf WHERE id = 1")).isEqualTo(3);
        assertExact();
    }

    @Test
    void aRefusedDeltaWaitsForAnOlderOneThatAnotherRoundHolds() throws Exception {
        Session locker = sessions.open("locker"), first = sessions.open("first"), second = sessions.open("second");
        sessions.open("in flight").run(BlogSchema.A_ROUND_IN_FLIGHT);   // so that the two rounds overlap
        db.execute("INSERT INTO shelf VALUES (1); INSERT INTO book (shelf_id) VALUES (1); DELETE FROM book");
        locker.run("BEGIN; SELECT 1 FROM shelf WHERE id = 1 FOR UPDATE");
        first.run("BEGIN; SELECT countercache.rollup(1)");           // claims +1, finds the shelf busy
        locker.run("COMMIT");
        second.run("BEGIN; SELECT countercache.rollup(1)");          // claims -1 alone: the CHECK refuses 0 - 1
        second.run("COMMIT");
        first.run("COMMIT");
        assertExact();
    }

    /**
     * A round folds what it claims per key; a folded sum that the target refuses waits (goes back to the queue) when
     * a delta older than the newest one it folds is queued, as each of its deltas would have: here the two -1 of the
     * shelf are claimed without the +1 between them, which another round holds.
     */
    @Test
    void aRefusedFoldedSumWaitsForADeltaOlderThanItsNewest() throws Exception {
        Session holder = sessions.open("holder"), rollup = sessions.open("rollup");
        db.execute("INSERT INTO shelf VALUES (1); INSERT INTO book (shelf_id) VALUES (1); SELECT countercache.rollup(100);"
                + "DELETE FROM book; INSERT INTO book (shelf_id) VALUES (1); DELETE FROM book");   // -1, +1, -1
        holder.run(BlogSchema.A_ROUND_IN_FLIGHT + "; SELECT 1 FROM countercache.delta WHERE delta > 0 FOR UPDATE");  // as a round would
        rollup.run("SELECT countercache.rollup(10)");   // claims -1 and -1: 1 - 2 is refused by the CHECK
        holder.run("ROLLBACK");
        assertExact();
        assertThat(db.queryLong("SELECT books FROM shelf WHERE id = 1")).isZero();
    }

    @Test
    void truncateInARepeatableReadTransactionIsRefusedWithTheFix() throws Exception {
        Session truncater = sessions.open("truncater"), writer = sessions.open("writer");
        truncater.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM blog_comment");
        writer.run(comment(1));
        assertThatThrownBy(() -> truncater.run("TRUNCATE blog_comment"))
                .hasMessageContaining("TRUNCATE of public.blog_comment cannot be counted exactly in a REPEATABLE READ")
                .hasMessageContaining("READ COMMITTED");
        truncater.run("ROLLBACK");
        truncater.run("TRUNCATE blog_comment");                       // READ COMMITTED: sees the insert, takes it back
        writer.run(comment(2));
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 2")).isEqualTo(1);
    }

    @Test
    void aTruncatedTargetHandsItsCountsBack() throws Exception {
        db.execute("INSERT INTO shelf VALUES (1); INSERT INTO book (shelf_id) VALUES (1), (1); SELECT countercache.rollup(100);"
                + "TRUNCATE shelf; SELECT countercache.rollup(100); INSERT INTO shelf VALUES (1)");
        assertExact();
        assertThat(db.queryLong("SELECT books FROM shelf WHERE id = 1")).isEqualTo(2);
    }

    @Test
    void aRollupNeverWaitsForAParentRowAndNeverDeadlocksWithItsHolder() throws Exception {
        Session app = sessions.open("app"), rollup = sessions.open("rollup");
        db.execute("INSERT INTO review (product_id, stars, approved) VALUES (1, 4, true), (1, 5, true)");
        app.run("BEGIN; SELECT 1 FROM shop WHERE id = 1 FOR UPDATE");
        // one update of the product row for both counters: no foreign-key re-check, so no FOR KEY SHARE on the shop
        rollup.run("BEGIN; SELECT countercache.rollup(100)");
        Step update = app.start("UPDATE product SET name = 'q' WHERE id = 1");
        sessions.awaitWaiting(app);                                  // the application waits for the round...
        rollup.run("COMMIT");                                        // ...which never waits for the application
        update.await();
        app.run("COMMIT");
        assertExact();
        assertThat(db.queryLong("SELECT stars FROM product WHERE id = 1")).isEqualTo(9);
    }

    /**
     * SKIP LOCKED does not cover one wait: a round whose statement saw an older version of a target row, since updated,
     * that a writer's foreign-key check still holds FOR KEY SHARE, follows the update chain and waits for whoever holds
     * the newest version, here an application. The round's lock_timeout ends that wait: the table's deltas stay queued
     * in their place and the other tables' are applied. Without the timeout the round waits until the application
     * commits, and this test fails with "rollup did not finish".
     */
    @Test
    void aRoundNeverWaitsForTheApplicationEvenWhereSkipLockedWould() throws Exception {
        db.execute(pausedForTheWorker("blog_article") + comment(1));
        Session writer = sessions.open("writer"), holder = sessions.open("holder"), app = sessions.open("app"),
                rollup = sessions.open("rollup");
        writer.run("BEGIN; " + comment(1));          // its foreign-key check holds article 1 FOR KEY SHARE
        holder.run("SELECT pg_advisory_lock(7)");
        rollup.run("SET ROLE countercache_worker");
        Step round = rollup.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(rollup);               // paused on article 1 with its statement's snapshot taken
        db.execute("UPDATE blog_article SET content = 'edited' WHERE id = 1");   // a newer version, committed
        app.run("BEGIN; UPDATE blog_article SET content = 'again' WHERE id = 1");  // the newest, held
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();                               // within the lock timeout, while the application holds the row
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE counter_id = "
                + BlogSchema.ARTICLE_COMMENTS.id())).as("the article's delta, still queued").isOne();
        assertThat(db.queryLong("SELECT total_public_comments FROM blog_user WHERE id = 1"))
                .as("the user's counter, applied by the same round").isOne();
        app.run("COMMIT");
        writer.run("COMMIT");
        assertExact();
    }

    /**
     * A table without a min, a max or a recomputed count (here blog_user) locks its rows inside the applying
     * statement, after that statement took its snapshot. A row that an application updated and committed in between
     * is locked in its newest version, which the snapshot does not see: the update must follow the row to it. The
     * round pauses inside its statement (a row-level security policy on the worker's reads), the application edits
     * user 1 and commits, and the round must count user 1's comment on the edited row. Written by the ctid the lock
     * returned, the update skipped the row while its key counted as applied, and the comment was lost.
     */
    @Test
    void aRowUpdatedBetweenTheRoundsSnapshotAndItsLockIsCounted() throws Exception {
        db.execute(pausedForTheWorker("blog_user") + comment(1));
        Session holder = sessions.open("holder"), rollup = sessions.open("rollup");
        holder.run("SELECT pg_advisory_lock(7)");
        rollup.run("SET ROLE countercache_worker");
        Step round = rollup.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(rollup);               // paused on user 1 with its statement's snapshot taken
        db.execute("UPDATE blog_user SET username = 'edited' WHERE id = 1");   // a newer version, committed
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();
        assertThat(db.queryRows("SELECT username, total_public_comments FROM blog_user WHERE id = 1"))
                .as("the edited user, counted by the paused round").containsExactly(List.of("edited", "1"));
        assertExact();
    }

    /** A worker role whose every read of the tables waits while another session holds advisory lock 7. */
    private static String pausedForTheWorker(String... tables) throws Exception {
        StringBuilder sql = new StringBuilder("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles"
                + " WHERE rolname = 'countercache_worker') THEN CREATE ROLE countercache_worker; END IF; END $$;"
                + RolesIT.script("worker") + "CREATE FUNCTION pause() RETURNS boolean LANGUAGE sql"
                + " SET lock_timeout = 0"   // the round's lock timeout would end the pause at once
                + " AS $$ SELECT pg_advisory_lock_shared(7) IS NOT NULL AND pg_advisory_unlock_shared(7) $$;");
        for (String table : tables) {   // a pause inside the round's statement
            sql.append("ALTER TABLE ").append(table).append(" ENABLE ROW LEVEL SECURITY; CREATE POLICY paused ON ")
                    .append(table).append(" TO countercache_worker USING (pause()) WITH CHECK (true);");
        }
        return sql.toString();
    }

    /**
     * A round without lanes claims alone, deleting what it claims without locking it first, only while no other
     * round holds queued rows: here a round holding every queued row sits paused in its apply when a round without
     * lanes starts. That round must claim around the held rows (FOR UPDATE SKIP LOCKED) and apply a later comment;
     * claiming alone it would wait for the held rows until its lock timeout failed it.
     */
    @Test
    void aRoundClaimsAloneOnlyWhenNoOtherRoundHoldsQueuedRows() throws Exception {
        db.execute(pausedForTheWorker("blog_article", "blog_user") + comment(1));
        Session inFlight = sessions.open("in flight"), holder = sessions.open("holder"), paused = sessions.open("paused");
        inFlight.run(BlogSchema.A_ROUND_IN_FLIGHT);   // so that the paused round holds the queues' lock shared
        holder.run("SELECT pg_advisory_lock(7)");
        paused.run("SET ROLE countercache_worker");
        Step round = paused.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(paused);               // every queued delta claimed, paused in its apply
        inFlight.run("COMMIT");
        db.execute(comment(2));
        assertThat(db.queryLong("SELECT countercache.rollup(100)")).as("the later comment's deltas").isPositive();
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();
        assertExact();
    }

    /**
     * While a round claims alone, any other waits for its commit before it claims: claiming with FOR UPDATE SKIP
     * LOCKED, it would lock rows the lone round's claim may reach, and make it wait. Claiming nothing instead, it
     * would return 0 with deltas queued, and a drain loop would stop on it. Here the lone round claims one delta and
     * sits paused in its apply; the other round waits, then applies the rest.
     */
    @Test
    void aRoundBesideALoneRoundWaitsForItsCommitThenClaims() throws Exception {
        db.execute(pausedForTheWorker("blog_article", "blog_user") + comment(1) + ";" + comment(2));
        Session holder = sessions.open("holder"), paused = sessions.open("paused"), other = sessions.open("other");
        holder.run("SELECT pg_advisory_lock(7)");
        paused.run("SET ROLE countercache_worker");
        Step round = paused.start("SELECT countercache.rollup(1)");
        sessions.awaitWaiting(paused);
        Step beside = other.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(other);                // for the claim row the lone round holds
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();
        assertThat(Long.parseLong(beside.await().get(0).get(0))).as("the round beside the lone one").isPositive();
        assertExact();
    }

    /**
     * A round called in a transaction that has written already does not wait for a round claiming alone: the lone
     * round, in a transaction of the same application, may be waiting for a row this one wrote. It claims nothing.
     */
    @Test
    void aRoundInATransactionThatWroteDoesNotWaitForALoneRound() throws Exception {
        db.execute(comment(1));
        Session lone = sessions.open("lone"), app = sessions.open("app");
        lone.run("BEGIN; SELECT countercache.rollup(1)");
        app.run("BEGIN; UPDATE blog_article SET content = 'edited' WHERE id = 2");
        assertThat(app.queryLong("SELECT countercache.rollup(100)")).as("beside the lone round").isZero();
        app.run("COMMIT");
        lone.run("COMMIT");
        assertExact();
    }

    /**
     * A round beside a lone round waits at most half of what its statement_timeout leaves, then claims nothing: with
     * the full 10 s wait, a role's statement_timeout below that failed the round with 57014 (query canceled).
     */
    @Test
    void aRoundBesideALoneRoundGivesUpBeforeItsStatementTimeout() throws Exception {
        db.execute(comment(1) + ";" + comment(2));
        Session lone = sessions.open("lone"), other = sessions.open("other");
        lone.run("BEGIN; SELECT countercache.rollup(1)");
        other.run("SET statement_timeout = '1s'");
        Step beside = other.start("SELECT countercache.rollup(100)");   // it waits, then gives up
        assertThat(beside.await()).as("beside the lone round").containsExactly(List.of("0"));
        lone.run("COMMIT");
        assertThat(other.queryLong("SELECT countercache.rollup(100)")).as("once it committed").isPositive();
        assertExact();
    }

    /** A claim row gone missing (a partial restore) orders nothing: rounds claim as they did before it existed. */
    @Test
    void withoutItsClaimRowTheRollupStillClaims() throws Exception {
        db.execute("DELETE FROM countercache.queue_claim;" + comment(1));
        assertExact();
    }

    /**
     * A table whose value one key refuses is retried key by key, each try in a subtransaction of its own. The first
     * try's rollback released the locks its locking statement took, so each try locks its key again: here an
     * application takes article 2 in between, and article 2's deltas must go back to the queue. When the tries
     * reused the first locking statement's keys, article 2 counted as held, its deltas were consumed, and its row,
     * which the application held, was never written. Article 1's every update waits on an advisory lock of its own
     * (a sequence numbers the tries, which no rollback takes back) and is then refused, so the test knows where the
     * round is.
     */
    @Test
    void aKeyRetriedAfterAnotherKeysRefusalIsLockedAgainBeforeItCountsAsApplied() throws Exception {
        db.execute("CREATE SEQUENCE try_number;"
                // the round's lock_timeout would give the table back at once: the trigger waits as long as it takes
                + "CREATE FUNCTION refuse_article_1() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER"
                + " SET lock_timeout = 0 AS $$ BEGIN"
                + " PERFORM pg_advisory_xact_lock_shared(41 + nextval('public.try_number'));"
                + " RAISE EXCEPTION 'article 1 refuses every value'; END $$;"
                + "CREATE TRIGGER refuse_article_1 BEFORE UPDATE ON blog_article FOR EACH ROW WHEN (NEW.id = 1)"
                + " EXECUTE FUNCTION refuse_article_1();"
                + comment(1) + ";" + comment(2) + ";" + comment(2));
        Session gate = sessions.open("gate"), rollup = sessions.open("rollup"), app = sessions.open("app");
        gate.run("SELECT pg_advisory_lock(42), pg_advisory_lock(43)");
        Step round = rollup.start("SELECT countercache.rollup(100)");
        sessions.awaitWaiting(rollup);          // the first try, at article 1: it holds article 2 locked
        Step take = app.start("BEGIN; SELECT 1 FROM blog_article WHERE id = 2 FOR UPDATE");
        sessions.awaitWaiting(app);
        gate.run("SELECT pg_advisory_unlock(42)");   // the first try is refused and rolled back...
        take.await();                                 // ...which hands article 2 to the application
        sessions.awaitWaiting(rollup);          // the retry of article 1, before article 2's
        gate.run("SELECT pg_advisory_unlock(43)");
        round.await();
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE target_id = 2"))
                .as("article 2's deltas, back in the queue while the application holds it").isPositive();
        app.run("COMMIT");
        db.execute("DROP TRIGGER refuse_article_1 ON blog_article");
        while (db.queryLong("SELECT countercache.rollup(100)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT total_comments, most_likes FROM blog_article WHERE id = 2"))
                .containsExactly(List.of("2", "2"));
        // article 1's refused deltas are dead letters: dropped, and the article recounted
        db.execute("DELETE FROM countercache.dead_letter;"
                + "SELECT countercache.request_recount(k.id) FROM countercache.counter k");
        db.execute("CALL countercache.run_recounts()");
        assertExact();
    }
}
