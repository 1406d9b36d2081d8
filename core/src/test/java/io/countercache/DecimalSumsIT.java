package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Sums of numeric(p,s) columns: exact to the last decimal place, and a sum that overflows parks only its target. */
class DecimalSumsIT {

    private static final TableName INVOICE = new TableName("public", "invoice");
    private static final TableName LINE = new TableName("public", "line");

    private TestDatabase db;

    @BeforeEach
    void schema() {
        db = TestPostgres.newDatabase(DecimalSumsIT.class);
        db.execute("CREATE TABLE invoice (id bigint PRIMARY KEY);"
                + "CREATE TABLE line (id bigserial PRIMARY KEY, invoice_id bigint REFERENCES invoice,"
                + " price numeric(12,2), weight double precision, raw numeric, qty integer);"
                + "INSERT INTO invoice VALUES (1), (2)");
    }

    private static CounterDefinition sum(String column, String type, String of) {
        return new CounterDefinition("Invoice." + column, INVOICE, "id", KeyType.BIGINT, column, type, LINE,
                "invoice_id", null, of);
    }

    private void install(CounterDefinition... counters) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(counters)));
        }
    }

    private void rollup() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    @Test
    void aThousandCentsAddUpToTenExactly() throws Exception {
        CounterDefinition total = sum("total", "numeric(14,2)", "price");
        install(total, sum("units", "numeric(10,3)", "qty"));
        db.execute("INSERT INTO line (invoice_id, price, qty) SELECT 1, 0.01, 1 FROM generate_series(1, 1000);"
                + "INSERT INTO line (invoice_id, price, qty) VALUES (2, 19.99, 2), (2, -0.99, 1);"
                + "UPDATE line SET price = price + 0.10 WHERE invoice_id = 2");
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(ExactReads.readDecimal(c, total, List.of(1L, 2L)))
                    .containsEntry(1L, new BigDecimal("10.00")).containsEntry(2L, new BigDecimal("19.20"));
        }
        rollup();
        assertThat(db.queryRows("SELECT total::text, units::text FROM invoice ORDER BY id"))
                .containsExactly(List.of("10.00", "1000.000"), List.of("19.20", "3.000"));
        db.execute("UPDATE invoice SET total = total + 0.01 WHERE id = 2");   // drift, by hand
        assertThat(db.queryRows("SELECT key, stored::text, exact::text FROM countercache.drift(" + total.id() + ")"))
                .containsExactly(List.of("2", "19.21", "19.2"));
        db.execute("SELECT countercache.recount(" + total.id() + ")");
        rollup();
        assertThat(db.queryRows("SELECT total::text FROM invoice WHERE id = 2")).containsExactly(List.of("19.20"));
    }

    @Test
    void aSumThatOverflowsItsColumnIsADeadLetterOfThatTargetOnly() throws Exception {
        CounterDefinition total = sum("total", "numeric(6,2)", "price");
        install(total);
        db.execute("INSERT INTO line (invoice_id, price) VALUES (1, 9000), (1, 1000), (2, 5.25)");
        rollup();
        assertThat(db.queryRows("SELECT total::text FROM invoice ORDER BY id"))
                .containsExactly(List.of("0.00"), List.of("5.25"));
        assertThat(db.queryRows("SELECT target_id::text, delta::text, sqlstate FROM countercache.dead_letter"))
                .containsExactly(List.of("1", "1000000", "22003"));         // in cents
        db.execute("ALTER TABLE invoice ALTER COLUMN total TYPE numeric(8,2)");
        db.execute("SELECT countercache.recount(" + total.id() + ")");       // retries the dead letter
        rollup();
        assertThat(db.queryRows("SELECT total::text FROM invoice ORDER BY id"))
                .containsExactly(List.of("10000.00"), List.of("5.25"));
    }

    @Test
    void floatingPointAndUnscaledSumsAreRefusedNamingTheCounter() {
        assertThatThrownBy(() -> install(sum("weight", "numeric(14,2)", "weight")))
                .hasMessageContaining("@CounterCache on Invoice.weight: sum column public.line.weight is double precision")
                .hasMessageContaining("floating point sums cannot be exact");
        assertThatThrownBy(() -> install(sum("raw", "numeric(14,2)", "raw")))
                .hasMessageContaining("@CounterCache on Invoice.raw: sum column public.line.raw is numeric, with more"
                        + " decimal places than the counter's numeric(14,2)")
                .hasMessageContaining("give the sum column a scale");
        assertThatThrownBy(() -> install(sum("cents", "bigint", "price")))
                .hasMessageContaining("sum column public.line.price is numeric(12,2), with more decimal places than"
                        + " the counter's bigint")
                .hasMessageContaining("keep at least 2 decimal places in the counter (a BigDecimal field with"
                        + " @Column(scale = 2))")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("give the sum column a scale"));
        db.execute("ALTER TABLE invoice ADD COLUMN total numeric(14,4) NOT NULL DEFAULT 0");
        assertThatThrownBy(() -> install(sum("total", "numeric(14,2)", "price")))
                .hasMessageContaining("counter column public.invoice.total is numeric(14,4), the entity model says"
                        + " numeric(14,2)");
    }
}
