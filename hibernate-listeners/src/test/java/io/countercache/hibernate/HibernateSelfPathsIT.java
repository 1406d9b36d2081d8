package io.countercache.hibernate;

import io.countercache.CatalogCheck;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A count of a table's own rows ({@link Employee}: {@code manager}, the direct reports), and paths through one table
 * twice and three times ({@code manager.manager} and {@code manager.manager.manager}): every level of both is a column
 * of the employee table, each under a name of its own, and a manager who moves moves the counts of everyone beneath.
 */
class HibernateSelfPathsIT {

    private static final List<Class<?>> MODEL = List.of(Employee.class);
    /** Each employee's three counters beside their recount from the hierarchy itself. */
    private static final String RECOUNT = "SELECT e.id, e.directreports,"
            + " (SELECT count(*) FROM employee a WHERE a.manager_id = e.id), e.skiplevelreports,"
            + " (SELECT count(*) FROM employee a JOIN employee b ON b.id = a.manager_id WHERE b.manager_id = e.id),"
            + " e.thirdlevelreports,"
            + " (SELECT count(*) FROM employee a JOIN employee b ON b.id = a.manager_id JOIN employee c ON c.id = b.manager_id"
            + "   WHERE c.manager_id = e.id)"
            + " FROM employee e ORDER BY e.id";
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateSelfPathsIT.class);
        emf = Units.boot(db, "self", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    private static void rollup() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    private static void assertExact() {
        assertThat(db.queryRows(RECOUNT)).as("(id, direct, recount, skip-level, recount, third-level, recount)")
                .allSatisfy(r -> {
                    assertThat(r.get(1)).isEqualTo(r.get(2));
                    assertThat(r.get(3)).isEqualTo(r.get(4));
                    assertThat(r.get(5)).isEqualTo(r.get(6));
                });
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    @Test
    void everyLevelOfBothPathsHasAColumnOfItsOwn() {
        assertThat(EntityModel.counters(MODEL, Map.of()).stream().map(d -> d.target().table() + "." + d.column()))
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("employee.directreports", "employee.skiplevelreports",
                        "employee.countercache_employee__skiplevelreports",
                        "employee.thirdlevelreports", "employee.countercache_employee__thirdlevelreports",
                        "employee.countercache_employee__thirdlevelreports__2");
    }

    @Test
    void aManagerWhoMovesTakesTheCountsBeneathWithHer() throws Exception {
        // 1 is the top; 2 and 3 report to 1; 4..9 report to 2 or 3; 10..27 report to 4..9
        db.execute("INSERT INTO employee (id, manager_id, skiplevelreports, thirdlevelreports) VALUES (1, NULL, 0, 0);"
                + "INSERT INTO employee (id, manager_id, skiplevelreports, thirdlevelreports)"
                + " SELECT g, 1, 0, 0 FROM generate_series(2, 3) g;"
                + "INSERT INTO employee (id, manager_id, skiplevelreports, thirdlevelreports)"
                + " SELECT g, 2 + g % 2, 0, 0 FROM generate_series(4, 9) g;"
                + "INSERT INTO employee (id, manager_id, skiplevelreports, thirdlevelreports)"
                + " SELECT g, 4 + g % 6, 0, 0 FROM generate_series(10, 27) g");
        long skip = emf.callInTransaction(em -> CounterCaches.exact(em, Employee.class, "skipLevelReports", 1L));
        long third = emf.callInTransaction(em -> CounterCaches.exact(em, Employee.class, "thirdLevelReports", 1L));
        assertThat(List.of(skip, third)).as("exact before any rollup").containsExactly(6L, 18L);
        rollup();
        assertExact();
        assertThat(db.queryRows("SELECT directreports, skiplevelreports, thirdlevelreports FROM employee WHERE id = 1"))
                .containsExactly(List.of("2", "6", "18"));

        // through Hibernate: 5 moves under 4 (one level down, with its three reports), 3 under 2
        emf.runInTransaction(em -> {
            Employee four = em.find(Employee.class, 4L);
            em.find(Employee.class, 5L).manager = four;
            em.find(Employee.class, 3L).manager = em.find(Employee.class, 2L);
        });
        long moved = emf.callInTransaction(em -> CounterCaches.exact(em, Employee.class, "thirdLevelReports", 1L));
        assertThat(moved).as("exact after the moves, before a rollup").isEqualTo(
                db.queryLong("SELECT count(*) FROM employee a JOIN employee b ON b.id = a.manager_id"
                        + " JOIN employee c ON c.id = b.manager_id WHERE c.manager_id = 1"));
        rollup();
        assertExact();

        // in SQL: a subtree leaves, an employee becomes her own manager's peer, the top gets a manager
        db.execute("DELETE FROM employee WHERE manager_id = 6; DELETE FROM employee WHERE id = 6;"
                + "UPDATE employee SET manager_id = 1 WHERE id = 7;"
                + "INSERT INTO employee (id, manager_id, skiplevelreports, thirdlevelreports) VALUES (0, NULL, 0, 0);"
                + "UPDATE employee SET manager_id = 0 WHERE id = 1");
        rollup();
        assertExact();
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, EntityModel.counters(MODEL, Map.of()), Set.of())).isEmpty();
        }
    }
}
