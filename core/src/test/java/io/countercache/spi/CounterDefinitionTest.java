package io.countercache.spi;

import io.countercache.CounterCacheException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CounterDefinitionTest {

    private static CounterDefinition counter(String column, String where, String columnType) {
        return new CounterDefinition("Article." + column, new TableName("public", "article"), "id", KeyType.BIGINT,
                column, columnType, new TableName("public", "comment"), "article_id", where, null);
    }

    @Test
    void theIdIsAStablePositiveHashOfTheCounterColumn() {
        CounterDefinition c = counter("total", null, "bigint");
        assertThat(c.name()).isEqualTo("public.article.total");
        assertThat(c.id()).isPositive().isEqualTo(counter("total", "x > 1", "bigint").id());
        assertThat(c.id()).isNotEqualTo(counter("other", null, "bigint").id());
    }

    @Test
    void theDefinitionHashChangesWithWhatDecidesTheValueOnly() {
        assertThat(counter("total", "x > 1", "bigint").definitionHash())
                .isNotEqualTo(counter("total", "x > 2", "bigint").definitionHash())
                .isEqualTo(counter("total", "x > 1", "integer").definitionHash());
    }

    @Test
    void aBlankConditionMeansEveryRow() {
        assertThat(counter("total", "  ", "bigint").condition()).isNull();
    }

    @Test
    void anUnsupportedColumnTypeIsRefusedNamingTheField() {
        assertThatThrownBy(() -> counter("total", null, "numeric"))
                .isInstanceOf(CounterCacheException.class)
                .hasMessage("@CounterCache on Article.total: column type numeric is not supported; declare the field as"
                        + " long, int or BigDecimal");
        assertThatThrownBy(() -> counter("total", null, "numeric(40,20)"))
                .hasMessageContaining("has a scale the queue cannot hold exactly");
        assertThatThrownBy(() -> counter("total", null, "numeric(14,2)"))
                .hasMessageContaining("a numeric(14,2) counter must sum a column");
    }

    @Test
    void aNumericSumTravelsInUnitsOfItsScale() {
        assertThat(new CounterDefinition("Order.value", new TableName("public", "shop_order"), "id", KeyType.UUID,
                "value", "numeric(14, 2)", new TableName("public", "line"), "order_id", null, "price").scale())
                .isEqualTo(2);
        assertThat(counter("total", null, "bigint").scale()).isZero();
    }
}
