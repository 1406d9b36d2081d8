package io.countercache.internal;

import io.countercache.CounterCacheException;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation.Unit;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InstallSqlTest {

    private static final TableName ARTICLE = new TableName("public", "article");
    private static final TableName COMMENT = new TableName("public", "comment");

    private static CounterDefinition counter(String column, String where) {
        return new CounterDefinition("Article." + column, ARTICLE, "id", KeyType.BIGINT, column, "bigint", COMMENT,
                "article_id", where, null);
    }

    @Test
    void unitsComeInOrderWithStableIdsAndTheRecountLast() {
        List<Unit> units = InstallSql.units(List.of(counter("total", null)));
        assertThat(units).extracting(Unit::id).containsExactly("countercache-schema", "countercache-source-public.comment",
                "countercache-target-public.article", "countercache-prune", "countercache-recount");
        assertThat(units).extracting(Unit::everyTime).containsExactly(false, false, false, false, true);
    }

    @Test
    void theTextIsTheSameWhateverTheOrderOfTheCounters() {
        CounterDefinition a = counter("a", null), b = counter("b", "x > 1");
        assertThat(InstallSql.units(List.of(a, b))).isEqualTo(InstallSql.units(List.of(b, a)));
    }

    @Test
    void aTriggerBodyIsQuotedWithATagItsConditionDoesNotHold() {
        String sql = InstallSql.units(List.of(counter("odd", "s = '$capture$' OR s = '$capture_1$'"))).get(1).sql();
        assertThat(sql).contains("AS $capture_2$\n").endsWith("$capture_2$;\n\n" + sql.substring(sql.indexOf(
                "CREATE OR REPLACE TRIGGER countercache_insert")));
    }

    @Test
    void triggerFunctionNamesFitPostgresIdentifiers() {
        String longName = "t".repeat(63);
        String name = InstallSql.triggerFunction("capture_", new TableName("s".repeat(63), longName));
        assertThat(name.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(63);
        assertThat(name).startsWith("capture_");
    }

    @Test
    void twoCountersOnOneColumnAreRefusedNamingBoth() {
        assertThatThrownBy(() -> InstallSql.units(List.of(counter("n", null), counter("n", "x"))))
                .isInstanceOf(CounterCacheException.class)
                .hasMessageContaining("Article.n and on Article.n both map to column public.article.n");
    }

    @Test
    void identifiersAreQuotedAndLiteralsEscaped() {
        assertThat(Sql.ident("we\"ird name")).isEqualTo("\"we\"\"ird name\"");
        assertThat(Sql.literal("it's")).isEqualTo("'it''s'");
        assertThat(Sql.literal(null)).isEqualTo("NULL");
        assertThatThrownBy(() -> Sql.ident("a\0b")).isInstanceOf(IllegalArgumentException.class);
    }
}
