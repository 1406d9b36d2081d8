package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the database generates from the catalog: the contribution formula, row by row, and the trigger functions of a
 * few representative tables against golden files (src/test/resources/io/countercache/golden). After a deliberate
 * change of the generated text, run with -Dgolden.update=true and review the diff of the golden files.
 */
class GeneratedSqlIT {

    private static final Path GOLDEN = Path.of("src/test/resources/io/countercache/golden");
    private static TestDatabase db;

    @BeforeAll
    static void install() throws Exception {
        db = TestPostgres.newDatabase(GeneratedSqlIT.class);
        db.execute(BlogSchema.TABLES);
        // one counter of each strategy beside the queue's: direct and queue on one source, slotted, unlogged
        List<CounterDefinition> counters = BlogSchema.ALL.stream().map(c ->
                c == BlogSchema.ARTICLE_LIKES ? c.withStrategy(Strategy.DIRECT, 0)
                        : c == BlogSchema.TAG_USES ? c.withStrategy(Strategy.SLOTTED, 4)
                        : c == BlogSchema.ORDER_TOTAL ? c.withStrategy(Strategy.UNLOGGED, 0) : c).toList();
        BlogSchema.install(db, counters);
    }

    /** The contributions of one row, given as a one-row relation, to the counter named: (key, amount) or none. */
    private static List<List<String>> contributions(CounterDefinition c, String row, int sign) {
        return contributions(c, row, sign, "x.k, x.d");
    }

    /** The same, with the columns named (of k, v, d). */
    private static List<List<String>> contributions(CounterDefinition c, String row, int sign, String columns) {
        return db.queryRows("SELECT countercache.contributions_sql(k, '" + row.replace("'", "''") + "', " + sign
                + ") FROM countercache.counter k WHERE k.id = " + c.id()).stream()
                .flatMap(q -> db.queryRows("SELECT " + columns + " FROM (" + q.get(0) + ") x").stream()).toList();
    }

    @Test
    void aDistinctCounterRowCountsItsValueOnceItHasOne() {
        String row = "(SELECT 7::bigint AS article_id, 'public' AS publish_status, %s::bigint AS creator_id)";
        assertThat(contributions(BlogSchema.ARTICLE_COMMENTERS, row.formatted("5"), -1, "x.k, x.v, x.d"))
                .containsExactly(List.of("7", "5", "-1"));
        assertThat(contributions(BlogSchema.ARTICLE_COMMENTERS, row.formatted("NULL"), 1, "x.k, x.v, x.d"))
                .as("count(DISTINCT x) passes NULL over").isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "ARTICLE_COMMENTS | 1  | (SELECT 7::bigint AS article_id, 'private' AS publish_status, 3 AS likes) | 7,1",
            "ARTICLE_COMMENTS | -1 | (SELECT 7::bigint AS article_id, 'private' AS publish_status, 3 AS likes) | 7,-1",
            "ARTICLE_COMMENTS | 1  | (SELECT NULL::bigint AS article_id, 'public' AS publish_status, 3 AS likes) | ",
            "ARTICLE_PUBLIC   | 1  | (SELECT 7::bigint AS article_id, 'private' AS publish_status, 3 AS likes) | ",
            "ARTICLE_PUBLIC   | 1  | (SELECT 7::bigint AS article_id, 'public' AS publish_status, 3 AS likes)  | 7,1",
            "ARTICLE_LIKES    | -1 | (SELECT 7::bigint AS article_id, 'public' AS publish_status, 3 AS likes)  | 7,-3",
            "ARTICLE_LIKES    | 1  | (SELECT 7::bigint AS article_id, 'public' AS publish_status, NULL::int AS likes) | 7,0",
            "ORDER_VALUE      | 1  | (SELECT '00000000-0000-0000-0000-000000000001'::uuid AS order_id, 12.34::numeric(12,2) AS price) | 00000000-0000-0000-0000-000000000001,1234",
    })
    void theContributionOfOneRow(String counter, int sign, String row, String expected) throws Exception {
        CounterDefinition c = (CounterDefinition) BlogSchema.class.getDeclaredField(counter).get(null);
        assertThat(contributions(c, row, sign)).isEqualTo(expected == null ? List.of() : List.of(List.of(expected.split(","))));
    }

    @Test
    void alongAPathARowCountsForTheTargetItsMiddleRowPointsAtNow() {
        db.execute("INSERT INTO shop (id) VALUES (1), (2); INSERT INTO product (id, shop_id) VALUES (10, 2)");
        assertThat(contributions(BlogSchema.SHOP_APPROVED, "(SELECT 10::bigint AS product_id, true AS approved)", 1))
                .containsExactly(List.of("2", "1"));
        assertThat(contributions(BlogSchema.SHOP_APPROVED, "(SELECT 11::bigint AS product_id, true AS approved)", 1))
                .as("a middle row that does not exist").isEmpty();
    }

    @Test
    void aNameCannotCloseTheCommentThatNamesTheCounter() {
        String sql = db.queryRows("SELECT countercache.contributions_sql(k, 'x', 1) FROM countercache.counter k"
                + " WHERE k.id = " + BlogSchema.ARTICLE_COMMENTS.id()).get(0).get(0);
        assertThat(sql).startsWith("SELECT /* @CounterCache on Article.totalComments */ ");
        String evil = db.queryRows("WITH u AS (UPDATE countercache.counter SET declared_by = 'Evil */ x /* y'"
                + " WHERE id = " + BlogSchema.ARTICLE_COMMENTS.id() + " RETURNING *)"
                + " SELECT countercache.contributions_sql(u::countercache.counter, 'x', 1) FROM u").get(0).get(0);
        db.execute("UPDATE countercache.counter SET declared_by = 'Article.totalComments' WHERE id = "
                + BlogSchema.ARTICLE_COMMENTS.id());
        assertThat(evil).startsWith("SELECT /* @CounterCache on Evil __ x __ y */ ");
    }

    @ParameterizedTest
    @CsvSource({"capture, public, blog_comment", "capture, public, tagging", "capture, public, shop_line",
            "capture, public, review", "target, public, product", "via, public, product"})
    void theTriggerFunctionOfATableIsWhatItsGoldenFileSays(String kind, String schema, String table) throws IOException {
        String actual = db.queryRows("SELECT pg_get_functiondef(format('countercache.%I()', countercache.trigger_function('"
                + kind + "', '" + schema + "', '" + table + "'))::regprocedure)").get(0).get(0)
                .replaceAll("_[0-9a-f]{8}\\(\\)", "_<digest>()");
        Path file = GOLDEN.resolve(kind + "-" + schema + "." + table + ".sql");
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(file, actual);
        }
        assertThat(actual).as("%s (regenerate with -Dgolden.update=true, then review the diff)", file)
                .isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }

    @Test
    void noFunctionOfTheSchemaIsPublicAfterAFirstInstallButThePackingOfAKey() {
        // a generated key column calls one as whoever writes the row (grants.sql); they read and write nothing
        assertThat(db.queryRows("SELECT p.oid::regprocedure FROM pg_proc p"
                + " WHERE p.pronamespace = 'countercache'::regnamespace AND has_function_privilege('public', p.oid, 'EXECUTE')"
                + " ORDER BY p.proname"))
                .containsExactly(List.of("countercache.digest_key(text,text)"), List.of("countercache.pair_key(bigint,bigint)"));
    }

    @Test
    void theSqlFunctionsDefaultBatchIsTheWorkers() {
        assertThat(db.queryLong("SELECT countercache.default_batch_size()")).isEqualTo(RollupWorker.DEFAULT_BATCH_SIZE);
    }

    @Test
    void triggerFunctionNamesAreUniquePerTableAndFitAnIdentifier() {
        assertThat(db.queryRows("""
                SELECT n, octet_length(n) <= 63 FROM (
                    SELECT countercache.trigger_function('capture', s, t) AS n
                      FROM (VALUES ('a', 'b_c'), ('a_b', 'c'), (repeat('s', 63), repeat('t', 63)),
                                   (repeat('s', 63), repeat('t', 62) || 'u'), ('Shop', 'Order items'),
                                   ('Shop', 'Order lines'), ('sch"ema', 'ta''ble'), (repeat('é', 31), repeat('ü', 31)))
                           AS v(s, t)) x""")).hasSize(8).allSatisfy(r -> assertThat(r.get(1)).isEqualTo("t"))
                .extracting(r -> r.get(0)).doesNotHaveDuplicates();
    }
}
