package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The concurrency arguments of the slotted and direct strategies, step by step (docs/architecture.md, "Strategies").
 * The unlogged queue's argument is a crash, tested by {@link CrashIT}; every strategy also runs {@link ChaosIT}.
 */
class StrategiesIT {

    private TestDatabase db;
    private Sessions sessions;

    private void schema(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(StrategiesIT.class);
        BlogSchema.create(db, strategy);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2)");
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

    @Test
    void slottedWritersOfOneTargetTakeSlotsNoOneHoldsAndTheRollupSkipsHeldOnes() throws Exception {
        schema(Strategy.SLOTTED);
        // the four slots of every counter a comment on article 1 by user 1 feeds, as earlier writes leave them
        db.execute("INSERT INTO countercache.slot (counter_id, target_id, slot, n)"
                + " SELECT k.id, 1, s, 0 FROM countercache.counter k, generate_series(0, 3) s"
                + " WHERE k.source_table = 'blog_comment' AND k.strategy = 'slotted'");
        Session a = sessions.open("a"), b = sessions.open("b"), c = sessions.open("c"), d = sessions.open("d");
        Session rollup = sessions.open("rollup");
        a.run("BEGIN; " + comment(1));
        b.run("BEGIN; " + comment(1));                 // fails if b waits for a's slot
        c.run(comment(1));                             // commits into a third slot
        rollup.run("BEGIN; SELECT countercache.rollup(100)");   // flushes c's slot, skips a's and b's
        d.run(comment(1));                             // the fourth slot: neither a, b nor the rollup holds it
        assertThat(db.queryLong("SELECT count(*) FROM countercache.slot WHERE target_id = 1 AND n <> 0"
                + " AND counter_id = " + BlogSchema.ARTICLE_COMMENTS.id())).as("slots with an amount: c's (its flush is not committed) and d's").isEqualTo(2);
        rollup.run("COMMIT");
        a.run("COMMIT");
        b.run("ROLLBACK");
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(3);
        assertThat(db.queryLong("SELECT countercache.prune_slots(100)")).as("zeroed slots pruned").isEqualTo(16);
    }

    @Test
    void aSlottedWriterThatFindsEverySlotHeldQueuesItsDeltaInsteadOfWaiting() throws Exception {
        schema(Strategy.SLOTTED);
        List<Session> holders = List.of(sessions.open("a"), sessions.open("b"), sessions.open("c"), sessions.open("d"));
        for (Session h : holders) {
            h.run("BEGIN; " + comment(1));             // each finds every slot held (or none) and opens another
        }
        Session late = sessions.open("late");
        late.run(comment(1));                          // all four held: fails if it waits for one
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE counter_id = "
                + BlogSchema.ARTICLE_COMMENTS.id())).as("the late writer's delta, queued").isEqualTo(1);
        for (Session h : holders) {
            h.run("COMMIT");
        }
        assertThat(db.queryLong("SELECT count(*) FROM countercache.slot WHERE counter_id = "
                + BlogSchema.ARTICLE_COMMENTS.id())).as("slots opened, one per holder").isEqualTo(4);
        assertExact();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).isEqualTo(5);
    }

    @Test
    void aSlottedCounterReadsExactWhileItsAmountsSitInSlots() throws Exception {
        schema(Strategy.SLOTTED);
        db.execute(comment(1) + ";" + comment(1) + ";" + comment(2));
        CounterDefinition counter = BlogSchema.ARTICLE_COMMENTS.withStrategy(Strategy.SLOTTED, 4);
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(ExactReads.read(c, counter, List.of(1L, 2L))).containsEntry(1L, 2L).containsEntry(2L, 1L);
        }
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).as("column before a rollup")
                .isZero();
        assertExact();
    }

    @Test
    void aDirectCounterIsExactAtCommitAndItsWritersQueueOnTheTargetRow() throws Exception {
        schema(Strategy.DIRECT);
        Session a = sessions.open("a"), b = sessions.open("b"), rollup = sessions.open("rollup");
        a.run("BEGIN; " + comment(1));
        assertThat(a.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).as("in the writer's transaction")
                .isEqualTo(1);
        Step second = b.start(comment(1));
        sessions.awaitWaiting(b);                      // the cost of direct: b waits for a's row lock on article 1
        db.execute("UPDATE blog_article SET total_comments = 9 WHERE id = 2");   // drift, by hand
        db.execute("SELECT countercache.recount(" + BlogSchema.ARTICLE_COMMENTS.id() + ")");
        rollup.run("SELECT countercache.rollup(100)"); // applies the correction of article 2; never waits for a
        a.run("COMMIT");
        second.await();
        assertThat(db.queryLong("SELECT total_comments FROM blog_article WHERE id = 1")).as("after both commits, no worker")
                .isEqualTo(2);
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE counter_id <> "
                + BlogSchema.ARTICLE_MOST_LIKES.id())).as("queued by the writers (a max is queued by every strategy)").isZero();
        assertExact();
    }

    /** docs/errors.md: a direct counter has no queue to park a refused value in, so the writer's statement fails. */
    @Test
    void aDirectCounterWhoseTargetRefusesTheValueFailsTheWritersStatement() throws Exception {
        schema(Strategy.DIRECT);
        db.execute("ALTER TABLE blog_article ADD CONSTRAINT at_most_one CHECK (total_comments <= 1);" + comment(1));
        assertThatThrownBy(() -> db.execute(comment(1))).hasMessageContaining("at_most_one");
        assertThat(db.queryLong("SELECT count(*) FROM blog_comment")).as("the refused comment is not written").isOne();
        assertExact();
    }

    private void assertExact() {
        assertThat(db.queryRows("SELECT counter_id, target_id, delta, error FROM countercache.dead_letter"))
                .as("dead letters").isEmpty();
        BlogSchema.assertExactAfterRollup(db);
    }
}
