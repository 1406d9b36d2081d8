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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.SQLException;
import java.util.List;

import static io.countercache.BlogSchema.SHOP_APPROVED;
import static io.countercache.BlogSchema.SHOP_APPROVED_BY_LEVELS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A path counted level by level ({@link BlogSchema#BY_LEVELS}: each product counts its approved reviews in a column of
 * the library's, each shop sums its products' column): no writer locks a middle row, so two transactions that each
 * write reviews of one product and move the other never deadlock, where the locking path
 * ({@link BlogSchema#SHOP_APPROVED}) does; exact reads see what is pending at every level; every change ends exact.
 */
class LevelsIT {

    private static final TableName SHOP = new TableName("public", "shop");
    private static final TableName PRODUCT = new TableName("public", "product");
    private static final TableName REVIEW = new TableName("public", "review");

    private TestDatabase db;
    private Sessions sessions;

    private void install(Strategy strategy, List<CounterDefinition> counters) throws Exception {
        db = TestPostgres.newDatabase(LevelsIT.class);
        db.execute(BlogSchema.TABLES);
        BlogSchema.install(db, counters.stream().map(c -> c.withStrategy(strategy, 4)).toList());
        db.execute("INSERT INTO shop (id) VALUES (1), (2); INSERT INTO product VALUES (1, 1, 'p'), (2, 1, 'q');"
                + "INSERT INTO review (product_id, stars, approved) VALUES (1, 5, true), (1, 4, true), (2, 3, true),"
                + " (2, 1, false)");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        if (sessions != null) {
            sessions.close();
        }
    }

    private void assertExact() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows("SELECT s.id, s.approved_by_levels, (SELECT count(*) FROM review r JOIN product p"
                + " ON p.id = r.product_id WHERE p.shop_id = s.id AND r.approved) FROM shop s"
                + " WHERE s.approved_by_levels <> (SELECT count(*) FROM review r JOIN product p ON p.id = r.product_id"
                + " WHERE p.shop_id = s.id AND r.approved)")).as("(shop, by levels, recount)").isEmpty();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    /**
     * T1 deletes a review of product 1, T2 one of product 2; then T1 moves product 2 and T2 product 1. A delete makes
     * no foreign key check, so without counters neither waits for the other. Counted level by level they do not
     * either, and both commit.
     */
    @Test
    void writersThatMoveEachOthersMiddleRowsDoNotDeadlock() throws Exception {
        install(Strategy.QUEUE, BlogSchema.BY_LEVELS);
        Session t1 = sessions.open("t1"), t2 = sessions.open("t2");
        t1.run("BEGIN; DELETE FROM review WHERE stars = 5");
        t2.run("BEGIN; DELETE FROM review WHERE stars = 3");
        t1.run("UPDATE product SET shop_id = 2 WHERE id = 2");
        t2.run("UPDATE product SET shop_id = 2 WHERE id = 1");
        t1.run("COMMIT");
        t2.run("COMMIT");
        assertExact();
        assertThat(db.queryRows("SELECT id, approved_by_levels FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "0"), List.of("2", "1"));
    }

    /** The same two transactions with the locking path: the capture's FOR KEY SHARE and the move's FOR UPDATE cross. */
    @Test
    void theLockingPathDeadlocksTheSameTwoWriters() throws Exception {
        install(Strategy.QUEUE, List.of(SHOP_APPROVED));
        Session t1 = sessions.open("t1"), t2 = sessions.open("t2");
        t1.run("BEGIN; DELETE FROM review WHERE stars = 5");
        t2.run("BEGIN; DELETE FROM review WHERE stars = 3");
        Step first = t1.start("UPDATE product SET shop_id = 2 WHERE id = 2");
        sessions.awaitWaiting(t1);
        Step second = t2.start("UPDATE product SET shop_id = 2 WHERE id = 1");
        int deadlocks = 0;
        for (Step s : List.of(first, second)) {
            try {
                s.await();
            } catch (SQLException e) {
                assertThat(e.getSQLState()).isEqualTo("40P01");
                deadlocks++;
            }
        }
        assertThat(deadlocks).isEqualTo(1);
    }

    /**
     * A round has applied product 1's reviews to its column and not committed; a move of product 1 waits for that
     * row, then reads its new version (READ COMMITTED re-reads a row updated under it), so it moves the new count,
     * which the round's own capture queued for the old shop.
     */
    @Test
    void aMoveWaitsForARoundThatUpdatedItsMiddleRowAndMovesTheNewCount() throws Exception {
        install(Strategy.QUEUE, BlogSchema.BY_LEVELS);
        Session round = sessions.open("round"), mover = sessions.open("mover");
        round.run("BEGIN; SELECT countercache.rollup(1000)");
        Step move = mover.start("UPDATE product SET shop_id = 2 WHERE id = 1");
        sessions.awaitWaiting(mover);
        round.run("COMMIT");
        move.await();
        assertExact();
        assertThat(db.queryRows("SELECT id, approved_by_levels FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "1"), List.of("2", "2"));
    }

    /** A mover holds product 1; a round skips its row without waiting, and a later round applies what it left. */
    @Test
    void aRoundSkipsAMiddleRowAMoverHoldsAndAppliesItAfter() throws Exception {
        install(Strategy.QUEUE, BlogSchema.BY_LEVELS);
        Session round = sessions.open("round"), mover = sessions.open("mover");
        mover.run("BEGIN; UPDATE product SET shop_id = 2 WHERE id = 1");
        round.start("SELECT countercache.rollup(1000)").await();   // would time out if it waited for the mover
        assertThat(db.queryLong("SELECT countercache_shop_approved_by_levels FROM product WHERE id = 2")).isEqualTo(1);
        assertThat(db.queryLong("SELECT countercache_shop_approved_by_levels FROM product WHERE id = 1")).isZero();
        mover.run("COMMIT");
        assertExact();
        assertThat(db.queryRows("SELECT id, approved_by_levels FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "1"), List.of("2", "2"));
    }

    /**
     * Under DIRECT, a round's update of a level (here a recount's correction of product 1) fires the direct capture of
     * the shop level inside the round. A writer holds shop 1: the round must not wait for it, so that capture queues,
     * and a later round applies it. Without that the round would wait, time out and leave the correction undone.
     */
    @Test
    void aRoundThatUpdatesALevelOfADirectPathQueuesTheLevelAboveInsteadOfWaiting() throws Exception {
        install(Strategy.DIRECT, BlogSchema.BY_LEVELS);
        db.execute("UPDATE product SET countercache_shop_approved_by_levels = 99 WHERE id = 1");
        db.execute("SELECT countercache.recount(" + BlogSchema.PRODUCT_LEVEL.id() + ")");
        Session writer = sessions.open("writer"), round = sessions.open("round");
        writer.run("BEGIN; SELECT FROM shop WHERE id = 1 FOR UPDATE");
        round.start("SELECT countercache.rollup(1000)").await();
        assertThat(db.queryLong("SELECT countercache_shop_approved_by_levels FROM product WHERE id = 1")).isEqualTo(2);
        writer.run("COMMIT");
        assertExact();
    }

    /** What a writer has not yet had rolled up reads exactly at the top, at whichever level it waits. */
    @Test
    void exactReadsAddWhatIsPendingAtEveryLevel() throws Exception {
        install(Strategy.QUEUE, BlogSchema.BY_LEVELS);
        String exact = "SELECT value::bigint FROM countercache.exact(" + SHOP_APPROVED_BY_LEVELS.id() + ", ARRAY[1, 2]::bigint[])"
                + " ORDER BY target_id";
        assertThat(db.queryRows(exact)).as("nothing rolled up").containsExactly(List.of("3"), List.of("0"));
        db.queryLong("SELECT countercache.rollup(1000)");   // the products' level, which queues the shops'
        assertThat(db.queryRows(exact)).containsExactly(List.of("3"), List.of("0"));
        db.execute("UPDATE product SET shop_id = 2 WHERE id = 2; UPDATE review SET approved = true WHERE stars = 1");
        assertThat(db.queryRows(exact)).containsExactly(List.of("2"), List.of("2"));
        assertExact();
        assertThat(db.queryRows("SELECT id, approved_by_levels FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "2"), List.of("2", "2"));
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void movesAtEveryLevelAndBulkStatementsEndExact(Strategy strategy) throws Exception {
        install(strategy, BlogSchema.BY_LEVELS);
        db.execute("INSERT INTO review (product_id, stars, approved) SELECT 1 + g % 2, g % 5, g % 3 > 0"
                + " FROM generate_series(1, 1500) g");
        db.execute("UPDATE product SET shop_id = 2 WHERE id = 1");
        assertExact();
        db.execute("BEGIN; UPDATE review SET approved = NOT approved WHERE id % 7 = 0;"
                + " UPDATE product SET shop_id = 3 - shop_id; DELETE FROM review WHERE id % 5 = 0; COMMIT");
        db.execute("DELETE FROM product WHERE id = 2");          // its reviews go with it (cascade)
        db.execute("INSERT INTO product VALUES (2, 1, 'again')");
        db.execute("INSERT INTO review (product_id, stars, approved) VALUES (2, 1, true)");
        assertExact();
        db.execute("TRUNCATE review");
        assertExact();
        assertThat(db.queryRows("SELECT approved_by_levels FROM shop")).containsOnly(List.of("0"));
    }

    /**
     * A path declared before levels existed: the new changelog redefines the same counter over the products' level.
     * Its old source's capture must forget it, or each review would count twice (once through the level).
     */
    @Test
    void aLockingPathRedefinedByLevelsCountsEachRowOnce() throws Exception {
        install(Strategy.QUEUE, List.of(SHOP_APPROVED));
        CounterDefinition level = new CounterDefinition("Shop.approvedReviews (per Product)", PRODUCT, "id",
                KeyType.BIGINT, "countercache_shop_approved_reviews", "bigint", REVIEW, "product_id", "approved", null);
        CounterDefinition top = new CounterDefinition("Shop.approvedReviews", SHOP, "id", KeyType.BIGINT,
                "approved_reviews", "bigint", PRODUCT, "shop_id", null, "countercache_shop_approved_reviews");
        BlogSchema.install(db, List.of(level, top));
        db.execute("CALL countercache.run_recounts()");
        db.execute("INSERT INTO review (product_id, stars, approved) VALUES (1, 2, true), (2, 2, true)");
        db.execute("UPDATE product SET shop_id = 2 WHERE id = 1");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows("SELECT id, approved_reviews FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "2"), List.of("2", "3"));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'product'::regclass"
                + " AND tgname LIKE 'countercache_via%'")).as("the old path's triggers").isZero();
    }

    /**
     * The changelog may define a level before the level beneath it (their source tables' changesets run in name
     * order): the first of the two adds the column of the library's, and the recounts make both exact.
     */
    @Test
    void aLevelDefinedBeforeTheLevelBeneathAddsItsColumn() throws Exception {
        install(Strategy.QUEUE, List.of(SHOP_APPROVED_BY_LEVELS));
        assertThat(db.queryLong("SELECT countercache_shop_approved_by_levels FROM product WHERE id = 1")).isZero();
        BlogSchema.install(db, BlogSchema.BY_LEVELS);
        db.execute("CALL countercache.run_recounts()");
        assertExact();
        assertThat(db.queryRows("SELECT id, approved_by_levels FROM shop ORDER BY id"))
                .containsExactly(List.of("1", "3"), List.of("2", "0"));
    }
}
