package io.countercache.internal;

import io.countercache.CounterCacheException;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation.Unit;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import org.junit.jupiter.api.Test;

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
        List<Unit> units = InstallSql.units("default", List.of(counter("total", null)), List.of());
        assertThat(units).extracting(Unit::id).containsExactly("countercache-schema", "countercache-check",
                "countercache-source-public.comment", "countercache-target-public.article", "countercache-prune",
                "countercache-limits", "countercache-recount");
        assertThat(units).extracting(Unit::everyTime).containsExactly(false, false, false, false, false, false, true);
    }

    @Test
    void theTextIsTheSameWhateverTheOrderOfTheCounters() {
        CounterDefinition a = counter("a", null), b = counter("b", "x > 1");
        assertThat(InstallSql.units("default", List.of(a, b), List.of())).isEqualTo(InstallSql.units("default", List.of(b, a), List.of()));
    }

    @Test
    void twoLimitsWithOneNameAreRefused() {
        var a = new io.countercache.spi.LimitDefinition("Customer", "calls", "1 day", 10, "UTC", 2);
        var b = new io.countercache.spi.LimitDefinition("Account", "calls", "1 hour", 5, "UTC", 2);
        assertThatThrownBy(() -> InstallSql.units("default", List.of(), List.of(a, b)))
                .hasMessageContaining("another @CounterLimit is also named \"calls\"");
    }

    @Test
    void aPeriodThatIsNotAnIntervalOfWholeUnitsIsRefusedAtOnce() {
        assertThatThrownBy(() -> new io.countercache.spi.LimitDefinition("@CounterLimit(name = \"calls\") on Customer",
                "calls", "1 dya", 10, "UTC", 2))
                .hasMessage("@CounterLimit(name = \"calls\") on Customer: period = \"1 dya\" is not an interval of whole"
                        + " units; write it as \"1 day\", \"1 hour\", \"15 minutes\" or \"1 month\"");
    }

    @Test
    void changesetIdsAreUniqueAndHaveNoBlanks() {
        List<String> ids = List.of(new TableName("Shop", "Order items"), new TableName("Shop", "Order lines"),
                new TableName("Shop", "Order_items")).stream().map(InstallSql::changesetName).toList();
        assertThat(ids).doesNotHaveDuplicates().noneMatch(id -> id.contains(" "));
        assertThat(InstallSql.changesetName(new TableName("public", "blog_comment"))).isEqualTo("public.blog_comment");
    }

    @Test
    void twoCountersOnOneColumnAreRefusedNamingBoth() {
        assertThatThrownBy(() -> InstallSql.units("default", List.of(counter("n", null), counter("n", "x")), List.of()))
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
