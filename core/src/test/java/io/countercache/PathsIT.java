package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.spi.Via;
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
 * Counters along a path (review -> product -> shop, {@link BlogSchema#SHOP_APPROVED}): the interleavings of a writer
 * of reviews with a transaction that moves their product to another shop, step by step (docs/architecture.md,
 * "Counters along a path"). Each ends with every counter equal to its recount; each fails without the lock it checks.
 */
class PathsIT {

    private TestDatabase db;
    private Sessions sessions;

    @BeforeEach
    void schema() throws Exception {
        db = TestPostgres.newDatabase(PathsIT.class);
        BlogSchema.create(db);
        db.execute("INSERT INTO shop VALUES (1, 'a'), (2, 'b'); INSERT INTO product VALUES (1, 1, 'p'), (2, 1, 'q');"
                + "INSERT INTO review (product_id, stars, approved) VALUES (1, 5, true), (1, 4, true), (2, 3, true);");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        sessions.close();
    }

    private long shop(long id, String column) {
        BlogSchema.assertExactAfterRollup(db);
        return db.queryLong("SELECT " + column + " FROM shop WHERE id = " + id);
    }

    /**
     * The writer deletes a review while the product is being moved: it must wait (its capture locks the product FOR
     * KEY SHARE, which the move's FOR UPDATE excludes) and then take the review from the new shop. A delete makes no
     * foreign key check, so without the capture's lock it would read the old shop.
     */
    @Test
    void aWriterOfTheSourceWaitsForAMoveInFlightAndCountsForTheNewTarget() throws Exception {
        Session mover = sessions.open("mover"), writer = sessions.open("writer");
        mover.run("BEGIN; UPDATE product SET shop_id = 2 WHERE id = 1");
        Step delete = writer.start("DELETE FROM review WHERE stars = 5");
        sessions.awaitWaiting(writer);
        mover.run("COMMIT");
        delete.await();
        assertThat(shop(1, "approved_reviews")).isEqualTo(1);
        assertThat(shop(2, "approved_reviews")).isEqualTo(1);
        assertThat(shop(2, "stars")).isEqualTo(4);
    }

    /**
     * A writer flips a review (no foreign key check, so no lock of the product but the capture's) and has not
     * committed; the move must wait for it, then count the flip. Without the move's FOR UPDATE it would count the
     * review as it was, and the writer's delta, queued for the old shop, would stay there.
     */
    @Test
    void aMoveWaitsForAWriterInFlightAndCountsItsWrite() throws Exception {
        Session mover = sessions.open("mover"), writer = sessions.open("writer");
        writer.run("BEGIN; UPDATE review SET approved = false WHERE stars = 5");
        Step move = mover.start("UPDATE product SET shop_id = 2 WHERE id = 1");
        sessions.awaitWaiting(mover);
        writer.run("COMMIT");
        move.await();
        assertThat(shop(1, "approved_reviews")).isEqualTo(1);
        assertThat(shop(2, "approved_reviews")).isEqualTo(1);
    }

    /** Moving a product back and forth, deleting one (its reviews cascade) and bulk moves all end exact. */
    @Test
    void movesDeletesAndBulkStatementsOnTheMiddleTableEndExact() throws Exception {
        db.execute("INSERT INTO product SELECT g, 1 + g % 2 FROM generate_series(3, 40) g;"
                + "INSERT INTO review (product_id, stars, approved) SELECT 1 + g % 40, g % 5, g % 3 = 0"
                + " FROM generate_series(1, 400) g;");
        db.execute("UPDATE product SET shop_id = 3 - shop_id WHERE id % 3 = 0");
        db.execute("INSERT INTO product VALUES (41, 1); UPDATE product SET id = 1000 WHERE id = 41");   // a key
        db.execute("DELETE FROM product WHERE id IN (5, 6)");
        db.execute("BEGIN; UPDATE product SET shop_id = 2 WHERE id = 9; UPDATE product SET shop_id = 1 WHERE id = 9;"
                + " UPDATE review SET product_id = 9 WHERE product_id = 10; COMMIT");
        BlogSchema.assertExactAfterRollup(db);
        assertThat(db.queryLong("SELECT sum(approved_reviews) FROM shop")).isEqualTo(
                db.queryLong("SELECT count(*) FROM review r JOIN product p ON p.id = r.product_id"
                        + " WHERE r.approved AND p.shop_id IS NOT NULL"));
        db.execute("TRUNCATE product CASCADE");
        assertThat(shop(1, "approved_reviews") + shop(2, "stars")).isZero();
    }

    /**
     * Under REPEATABLE READ a writer's snapshot may predate a move; its capture's FOR KEY SHARE of a product that a
     * move (holding it FOR UPDATE) changed since then is a serialization failure, which the application retries.
     */
    @Test
    void aRepeatableReadWriterThatMissedAMoveFailsToSerialize() throws Exception {
        Session mover = sessions.open("mover"), writer = sessions.open("writer");
        writer.run("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM review");   // its snapshot
        mover.run("UPDATE product SET shop_id = 2 WHERE id = 1");
        assertThatThrownBy(() -> writer.run("UPDATE review SET approved = false WHERE stars = 5"))
                .hasMessageContaining("could not serialize access");
        writer.run("ROLLBACK");
        assertThat(shop(2, "approved_reviews")).isEqualTo(2);
    }

    /** A changelog without the path counters removes the middle table's triggers with them. */
    @Test
    void forgettingThePathCountersDropsTheMiddleTablesTriggers() throws Exception {
        String triggers = "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'product'::regclass AND tgname LIKE 'countercache_via%'";
        assertThat(db.queryLong(triggers)).isEqualTo(2);
        BlogSchema.install(db, BlogSchema.ALL.stream()
                .filter(c -> c != BlogSchema.SHOP_APPROVED && c != BlogSchema.SHOP_STARS).toList());
        assertThat(db.queryLong(triggers)).isZero();
        long queued = db.queryLong("SELECT count(*) FROM countercache.delta");
        db.execute("UPDATE product SET shop_id = 2 WHERE id = 1");   // nothing left to count it
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isEqualTo(queued);
    }

    /** Without a foreign key a source row could point at a middle row not there yet, which no trigger sees arrive. */
    @Test
    void aPathWithoutAForeignKeyIsRefusedNamingTheFix() {
        db.execute("CREATE TABLE loose (id bigint PRIMARY KEY, product_id bigint)");
        CounterDefinition loose = new CounterDefinition("Shop.loose", new TableName("public", "shop"), "id",
                KeyType.BIGINT, "loose", "bigint", new TableName("public", "loose"), "product_id", null, null,
                Strategy.QUEUE, 0, new Via(new TableName("public", "product"), "id", KeyType.BIGINT, "shop_id"));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(loose)))
                .hasMessageContaining("@CounterCache on Shop.loose: public.loose.product_id has no foreign key"
                        + " constraint to public.product(id)")
                .hasMessageContaining("a counter along a path needs it (not deferrable)");
    }

    /** A move counts what it can see; under REPEATABLE READ that can be less than what is committed: refused. */
    @Test
    void aMoveOutsideReadCommittedIsRefusedNamingTheCounters() throws Exception {
        Session mover = sessions.open("mover");
        mover.run("BEGIN ISOLATION LEVEL REPEATABLE READ");
        assertThatThrownBy(() -> mover.run("UPDATE product SET shop_id = 2 WHERE id = 1"))
                .hasMessageContaining("moving a row of public.product (Shop.approvedReviews, Shop.stars)")
                .hasMessageContaining("REPEATABLE READ");
        mover.run("ROLLBACK");
        mover.run("BEGIN ISOLATION LEVEL REPEATABLE READ; UPDATE product SET name = 'renamed' WHERE id = 1; COMMIT");
        assertThat(shop(1, "approved_reviews")).isEqualTo(3);
    }
}
