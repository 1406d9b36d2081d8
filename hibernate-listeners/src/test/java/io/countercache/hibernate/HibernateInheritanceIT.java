package io.countercache.hibernate;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters of entities in JPA hierarchies (SINGLE_TABLE with subclasses two levels deep, JOINED, TABLE_PER_CLASS) and
 * a counter declared by a mapped superclass: writes through Hibernate, bulk JPQL and native SQL, a change of
 * subclass by SQL, all ending equal to a recount of each class's rows, with the boot check passing.
 */
class HibernateInheritanceIT {

    private static final List<Class<?>> MODEL = List.of(Desk.class, Feedback.class, Praise.class, Urgent.class,
            Task.class, Ticket.class, Duty.class, Chore.class, Shift.class);
    /** Each counter's column and what it must equal: a recount of the class's rows, written by hand. */
    private static final String RECOUNT = """
            SELECT d.id,
                   d.feedback = (SELECT count(*) FROM feedback f WHERE f.desk_id = d.id),
                   d.praise = (SELECT count(*) FROM feedback f WHERE f.desk_id = d.id AND f.dtype IN ('Praise', 'it''s urgent')),
                   d.openpraise = (SELECT count(*) FROM feedback f WHERE f.desk_id = d.id AND f.dtype IN ('Praise', 'it''s urgent') AND f.open),
                   d.urgent = (SELECT count(*) FROM feedback f WHERE f.desk_id = d.id AND f.dtype = 'it''s urgent'),
                   d.tasks = (SELECT count(*) FROM task t WHERE t.desk_id = d.id),
                   d.tickets = (SELECT count(*) FROM ticket t WHERE t.queue_id = d.id),
                   d.chores = (SELECT count(*) FROM chore c WHERE c.desk_id = d.id),
                   d.duties = (SELECT count(*) FROM (SELECT desk_id FROM chore UNION ALL SELECT desk_id FROM shift) x
                                WHERE x.desk_id = d.id),
                   d.urgentduties = (SELECT count(*) FROM (SELECT desk_id, urgent FROM chore
                                                          UNION ALL SELECT desk_id, urgent FROM shift) x
                                      WHERE x.desk_id = d.id AND x.urgent)
              FROM desk d ORDER BY d.id
            """;
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateInheritanceIT.class);
        emf = Units.boot(db, "inheritance", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    @Test
    void everyClassOfEveryHierarchyEndsEqualToARecountOfItsRows() {
        emf.runInTransaction(em -> {
            for (long d = 1; d <= 2; d++) {
                Desk desk = new Desk();
                desk.id = d;
                em.persist(desk);
            }
            Desk one = em.find(Desk.class, 1L), two = em.find(Desk.class, 2L);
            for (long i = 1; i <= 9; i++) {
                Feedback f = i % 3 == 0 ? new Feedback() : i % 3 == 1 ? new Praise() : new Urgent();
                f.id = i;
                f.desk = i % 2 == 0 ? one : two;
                f.open = i % 4 != 0;
                em.persist(f);
                Task t = i % 2 == 0 ? new Task() : new Ticket();
                t.id = i;
                t.desk = one;
                if (t instanceof Ticket ticket) {
                    ticket.queue = i % 3 == 0 ? one : two;
                }
                em.persist(t);
                Chore c = new Chore();
                c.id = i;
                c.desk = i < 5 ? one : two;
                c.urgent = i % 2 == 0;
                em.persist(c);
                Shift shift = new Shift();
                shift.id = 100 + i;
                shift.desk = i % 3 == 0 ? one : two;
                shift.urgent = i % 3 == 1;
                em.persist(shift);
            }
        });
        emf.runInTransaction(em -> {
            em.remove(em.find(Feedback.class, 2L));                                   // an Urgent, found as a Feedback
            em.find(Praise.class, 4L).desk = em.find(Desk.class, 1L);                 // moved
            em.createQuery("UPDATE Praise p SET p.open = false WHERE p.id > 5").executeUpdate();   // bulk JPQL, polymorphic
            em.createQuery("DELETE FROM Ticket t WHERE t.id = 3").executeUpdate();   // both tables of a JOINED subclass
            em.find(Chore.class, 1L).desk = em.find(Desk.class, 2L);
            em.find(Shift.class, 101L).desk = em.find(Desk.class, 1L);
            em.remove(em.find(Duty.class, 102L));                                     // a Shift, found as a Duty
            em.createQuery("UPDATE Duty d SET d.urgent = true WHERE d.id IN (3, 105, 106)").executeUpdate();   // both tables
        });
        db.execute("UPDATE feedback SET dtype = 'Praise' WHERE id = 3;"               // a Feedback becomes a Praise
                + "INSERT INTO feedback (id, dtype, desk_id, open) VALUES (20, 'it''s urgent', 1, true);"
                + "INSERT INTO task (id, desk_id) VALUES (20, 2); INSERT INTO ticket (id, queue_id) VALUES (20, 1);"
                + "DELETE FROM chore WHERE id = 9;"
                + "INSERT INTO shift (id, desk_id, urgent) VALUES (200, 1, true); UPDATE shift SET desk_id = 1 WHERE id = 107");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows(RECOUNT)).as("desk, then each counter equal to its recount")
                .containsExactly(List.of("1", "t", "t", "t", "t", "t", "t", "t", "t", "t"),
                        List.of("2", "t", "t", "t", "t", "t", "t", "t", "t", "t"));
        assertThat(db.queryRows("SELECT duties, urgentduties FROM desk ORDER BY id"))
                .as("chores and shifts together").containsExactly(List.of("9", "7"), List.of("8", "4"));
        assertThat(db.queryRows("SELECT praise, urgent, tickets FROM desk ORDER BY id"))
                .as("the subclasses' counts").containsExactly(List.of("3", "2", "2"), List.of("4", "1", "3"));
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }
}
