package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Counters of entities keyed by two columns: {@link Membership} ({@code @IdClass}, a many-to-one of
 * {@link Contribution} whose join columns are declared in the other order) and {@link Edition} ({@code @EmbeddedId},
 * Hibernate's default join columns from {@link Sale}), and {@link Berth} and {@link Quay}, keyed by a Long and a UUID
 * or a String, whose keys the library hashes. Writes through Hibernate, bulk JPQL and native SQL, exact reads by the entity's identifier, and a
 * member whose key changes, all end equal to a recount.
 */
class HibernatePairKeysIT {

    private static final List<Class<?>> MODEL = List.of(Membership.class, Contribution.class, Edition.class, Sale.class,
            Berth.class, Berth.Boat.class, Quay.class, Quay.Crane.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernatePairKeysIT.class);
        emf = Units.boot(db, "pairs", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    private static void rollUp() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    @Test
    void contributionsCountForTheMemberBothColumnsPointAt() {
        emf.runInTransaction(em -> {
            Membership[] members = new Membership[3];
            long[][] keys = {{1, 1}, {1, 2}, {2, 1}};
            for (int i = 0; i < 3; i++) {
                members[i] = new Membership();
                members[i].team = keys[i][0];
                members[i].number = (int) keys[i][1];
                em.persist(members[i]);
            }
            for (long id = 1; id <= 6; id++) {
                Contribution c = new Contribution();
                c.id = id;
                c.member = members[(int) (id % 3)];
                c.lines = (int) id - 2;
                em.persist(c);
            }
        });
        long exact = emf.callInTransaction(em -> CounterCaches.exact(em, Membership.class, "linesAdded",
                new Membership.Key(1L, 1)));
        assertThat(exact).as("member (1, 1) has contributions 3 and 6, of 1 and 4 lines").isEqualTo(5);
        rollUp();

        emf.runInTransaction(em -> em.createQuery("UPDATE Contribution c SET c.member = :m WHERE c.id = 1")
                .setParameter("m", em.find(Membership.class, new Membership.Key(2L, 1))).executeUpdate());
        db.execute("UPDATE contribution SET member_number = 2 WHERE id = 6;"      // from (1, 1) to (1, 2)
                + "UPDATE contribution SET member_team = NULL WHERE id = 5");     // to no member
        // member (2, 1) loses its contributions and gets another key, in one transaction: it hands its counts back
        db.execute("UPDATE contribution SET member_team = 1, member_number = 1 WHERE member_team = 2;"
                + "UPDATE membership SET number = 7 WHERE team = 2 AND number = 1");
        rollUp();
        List<Membership> members = emf.callInTransaction(em -> em.createQuery(
                "SELECT m FROM Membership m ORDER BY m.team, m.number", Membership.class).getResultList());
        assertThat(members).extracting(m -> m.team, m -> m.number, m -> m.contributions, m -> m.linesAdded)
                .containsExactly(tuple(1L, 1, 3L, 1L), tuple(1L, 2, 2L, 6L), tuple(2L, 7, 0L, 0L));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }

    @Test
    void salesCountForTheEditionOfAnEmbeddedId() {
        emf.runInTransaction(em -> {
            for (int language = 1; language <= 2; language++) {
                Edition e = new Edition();
                e.id = new Edition.Key(40L, language);
                em.persist(e);
            }
            for (long id = 1; id <= 5; id++) {
                Sale s = new Sale();
                s.id = id;
                s.edition = em.find(Edition.class, new Edition.Key(40L, id % 2 == 0 ? 2 : 1));
                em.persist(s);
            }
        });
        Map<Edition.Key, Long> exact = emf.callInTransaction(em -> CounterCaches.exact(em, Edition.class, "sales",
                List.of(new Edition.Key(40L, 1), new Edition.Key(40L, 2))));
        assertThat(exact).containsExactly(
                Map.entry(new Edition.Key(40L, 1), 3L), Map.entry(new Edition.Key(40L, 2), 2L));
        emf.runInTransaction(em -> em.createQuery("DELETE FROM Sale s WHERE s.id > 3").executeUpdate());
        rollUp();
        List<Object[]> sales = emf.callInTransaction(em -> em.createQuery("SELECT e.id.language, e.sales FROM Edition e"
                + " ORDER BY 1", Object[].class).getResultList());
        assertThat(sales).containsExactly(new Object[] {1, 2L}, new Object[] {2, 1L});
        assertThat(EntityModel.counters(MODEL, Map.of())).hasSize(5);
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    @Test
    void boatsCountForTheBerthOfAKeyWithAUuidPartWhichTheLibraryHashes() {
        java.util.UUID north = java.util.UUID.fromString("6f1c0a2e-0000-4000-8000-000000000001"),
                south = java.util.UUID.fromString("6f1c0a2e-0000-4000-8000-000000000002");
        emf.runInTransaction(em -> {
            Berth[] berths = new Berth[2];
            for (int i = 0; i < 2; i++) {
                berths[i] = new Berth();
                berths[i].harbour = 7L;
                berths[i].slot = i == 0 ? north : south;
                em.persist(berths[i]);
            }
            for (long id = 1; id <= 5; id++) {
                Berth.Boat b = new Berth.Boat();
                b.id = id;
                b.berth = berths[id <= 3 ? 0 : 1];
                em.persist(b);
            }
        });
        Map<Berth.Key, Long> exact = emf.callInTransaction(em -> CounterCaches.exact(em, Berth.class, "boats",
                List.of(new Berth.Key(7L, north), new Berth.Key(7L, south))));
        assertThat(exact).as("the key the entity's identifier hashes to in Java is the one the database keeps")
                .containsExactly(Map.entry(new Berth.Key(7L, north), 3L), Map.entry(new Berth.Key(7L, south), 2L));
        db.execute("UPDATE boat SET berth_slot = '" + south + "' WHERE id = 1;"   // to the other berth, by SQL
                + "DELETE FROM boat WHERE id = 5");
        emf.runInTransaction(em -> em.createQuery("UPDATE Boat b SET b.berth = NULL WHERE b.id = 2")
                .executeUpdate());
        rollUp();
        assertThat(db.queryRows("SELECT slot, boats FROM berth ORDER BY slot"))
                .containsExactly(List.of(north.toString(), "1"), List.of(south.toString(), "2"));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }

    @Test
    void cranesCountForTheQuayOfAKeyWithATextPartWhichTheLibraryHashes() {
        // names with the digest's separator, its escape, and letters beyond ASCII
        List<Quay.Key> quays = List.of(new Quay.Key(8L, "dock/1"), new Quay.Key(1L, "dock"),
                new Quay.Key(8L, "S\u00fcd\\kai"));
        emf.runInTransaction(em -> {
            for (Quay.Key key : quays) {
                Quay q = new Quay();
                q.harbour = key.harbour();
                q.name = key.name();
                em.persist(q);
            }
            for (long id = 1; id <= 6; id++) {
                Quay.Crane c = new Quay.Crane();
                c.id = id;
                c.quay = em.find(Quay.class, quays.get(id <= 3 ? 0 : 1));
                em.persist(c);
            }
        });
        Map<Quay.Key, Long> exact = emf.callInTransaction(em -> CounterCaches.exact(em, Quay.class, "cranes", quays));
        assertThat(exact).as("the key the entity's identifier hashes to in Java is the one the database keeps")
                .containsExactly(Map.entry(quays.get(0), 3L), Map.entry(quays.get(1), 3L), Map.entry(quays.get(2), 0L));
        db.execute("UPDATE crane SET quay_harbour = 8, quay_name = 'S\u00fcd\\kai' WHERE id = 4;"   // by SQL
                + "DELETE FROM crane WHERE id = 6");
        emf.runInTransaction(em -> em.createQuery("UPDATE Crane c SET c.quay = NULL WHERE c.id = 2")
                .executeUpdate());
        rollUp();
        assertThat(db.queryRows("SELECT harbour, name, cranes FROM quay ORDER BY 1, 3")).containsExactly(
                List.of("1", "dock", "1"), List.of("8", "S\u00fcd\\kai", "1"), List.of("8", "dock/1", "2"));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }
}
