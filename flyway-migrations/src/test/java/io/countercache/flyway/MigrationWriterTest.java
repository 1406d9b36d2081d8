package io.countercache.flyway;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MigrationWriterTest {

    private static final List<CounterDefinition> ORDERS = List.of(new CounterDefinition("Shop.orders",
            new TableName("public", "shop"), "id", KeyType.BIGINT, "orders", "bigint",
            new TableName("public", "shop_order"), "shop_id", null, null));

    @Test
    void theHeaderNamesTheMavenCommandThatWritesFlywayMigrationsNotTheChangelog() {
        assertThat(MigrationWriter.render("shop", ORDERS, List.of(), "mvn process-classes countercache:generate"))
                .hasSize(3).allSatisfy((file, text) -> {
                    if (file.endsWith(".sql")) {
                        assertThat(text).as(file).contains("\n-- Regenerate with: mvn process-classes"
                                + " countercache:generate -Dcountercache.format=flyway\n");
                    }
                });
    }

    @Test
    void anyOtherCommandIsNamedAsGiven() {
        assertThat(MigrationWriter.render("shop", ORDERS, List.of(), "mvn process-classes countercache:generate@flyway"))
                .hasEntrySatisfying("R__countercache_shop.sql", text -> assertThat(text)
                        .contains("\n-- Regenerate with: mvn process-classes countercache:generate@flyway\n"));
    }
}
