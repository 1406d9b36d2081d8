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
                        + " long or int");
    }
}
