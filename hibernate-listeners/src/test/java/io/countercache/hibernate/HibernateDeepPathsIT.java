package io.countercache.hibernate;

import io.countercache.CatalogCheck;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.CounterDefinition;
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
import static org.assertj.core.api.Assertions.tuple;

/**
 * A path of three steps ({@code via = "purchase.account.region"} on {@link Region}), counted level by level: each
 * purchase and each account keeps a column of the library's, and a move at any depth reaches the regions.
 */
class HibernateDeepPathsIT {

    private static final List<Class<?>> MODEL = List.of(Region.class, Account.class, Purchase.class, LineItem.class);
    private static final String REGIONS = "SELECT id, lines, quantity FROM region ORDER BY id";
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateDeepPathsIT.class);
        emf = Units.boot(db, "deep", MODEL);
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

    @Test
    void eachMiddleEntityKeepsALevelAndTheFieldSumsTheOneBeneath() {
        assertThat(EntityModel.counters(MODEL, Map.of())).extracting(CounterDefinition::declaredBy,
                        d -> d.target().table() + "." + d.column(), d -> d.source().table() + "." + d.sourceFk(),
                        CounterDefinition::sumColumn)
                .containsExactly(
                        tuple("Region.lines (per Account)", "account.countercache_region__lines__2",
                                "purchase.account_id", "countercache_region__lines"),
                        tuple("Region.quantity (per Account)", "account.countercache_region__quantity__2",
                                "purchase.account_id", "countercache_region__quantity"),
                        tuple("Region.lines (per Purchase)", "purchase.countercache_region__lines",
                                "lineitem.purchase_id", null),
                        tuple("Region.quantity (per Purchase)", "purchase.countercache_region__quantity",
                                "lineitem.purchase_id", "quantity"),
                        tuple("Region.lines", "region.lines", "account.region_id", "countercache_region__lines__2"),
                        tuple("Region.quantity", "region.quantity", "account.region_id",
                                "countercache_region__quantity__2"));
    }

    @Test
    void aMoveAtAnyDepthMovesTheCountsBeneathIt() throws Exception {
        db.execute("INSERT INTO region (id, lines, quantity) VALUES (1, 0, 0), (2, 0, 0);"
                + "INSERT INTO account (id, region_id) VALUES (1, 1), (2, 1);"
                + "INSERT INTO purchase (id, account_id) VALUES (1, 1), (2, 1), (3, 2);"
                + "INSERT INTO lineitem (id, purchase_id, quantity) SELECT g, 1 + g % 3, g % 4 FROM generate_series(1, 30) g");
        long exact = emf.callInTransaction(em -> CounterCaches.exact(em, Region.class, "lines", 1L));
        assertThat(exact).as("nothing rolled up yet").isEqualTo(30);
        rollup();
        assertThat(db.queryRows(REGIONS)).containsExactly(List.of("1", "30", "45"), List.of("2", "0", "0"));

        db.execute("UPDATE account SET region_id = 2 WHERE id = 2");      // depth three: with its purchase 3
        db.execute("UPDATE purchase SET account_id = 2 WHERE id = 1");    // depth two: to the account just moved
        long moved = emf.callInTransaction(em -> CounterCaches.exact(em, Region.class, "quantity", 2L));
        assertThat(moved).isEqualTo(32);
        rollup();
        assertThat(db.queryRows(REGIONS)).containsExactly(List.of("1", "10", "13"), List.of("2", "20", "32"));

        db.execute("DELETE FROM lineitem WHERE quantity = 0; UPDATE lineitem SET purchase_id = 2 WHERE id <= 6");
        db.execute("DELETE FROM lineitem WHERE purchase_id = 3; DELETE FROM purchase WHERE id = 3");
        rollup();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT r.id, r.lines, count(l.id) FROM region r LEFT JOIN account a ON a.region_id = r.id"
                + " LEFT JOIN purchase p ON p.account_id = a.id LEFT JOIN lineitem l ON l.purchase_id = p.id"
                + " GROUP BY r.id, r.lines ORDER BY r.id"))
                .as("(region, lines, recount)").allSatisfy(r -> assertThat(r.get(1)).isEqualTo(r.get(2)));
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, EntityModel.counters(MODEL, Map.of()), Set.of())).isEmpty();
        }
    }
}
