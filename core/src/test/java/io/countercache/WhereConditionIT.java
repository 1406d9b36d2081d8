package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PostgreSQL, not a hand lexer, judges a {@code where}: it must be one boolean expression over the source table, and
 * nothing in it can add a statement to the install or to a trigger, however it is quoted.
 */
class WhereConditionIT {

    private static TestDatabase db;

    @BeforeAll
    static void schema() throws Exception {
        db = TestPostgres.newDatabase(WhereConditionIT.class);
        db.execute(BlogSchema.TABLES);
    }

    private static CounterDefinition counter(String column, String where) {
        return new CounterDefinition("Article." + column, BlogSchema.ARTICLE, "id", KeyType.BIGINT, column, "bigint",
                BlogSchema.COMMENT, "article_id", where, null);
    }

    private static void install(CounterDefinition c) throws Exception {
        try (Connection conn = db.dataSource().getConnection()) {
            Installation.apply(conn, Installation.units(List.of(c)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "true); DROP TABLE blog_user; SELECT (true",
            "publish_status = E'\\'' OR true); DROP TABLE blog_user; SELECT (true",
            "true) UNION SELECT (false",
            "true)] FROM blog_comment; DROP TABLE blog_user; SELECT ARRAY[(true",
            "likes",
            "true; DROP TABLE blog_user"})
    void aConditionThatIsNotOneBooleanExpressionIsRefusedAndRunsNothing(String where) {
        assertThatThrownBy(() -> install(counter("total_bad", where)))
                .hasMessageContaining("@CounterCache on Article.total_bad: where = \"" + where + "\" is not one boolean"
                        + " expression over public.blog_comment");
        assertThat(db.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'blog_user'")).as("blog_user").isOne();
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'countercache%'")).isZero();
    }

    /** A subquery would make the count depend on a table whose writes nothing captures: it would drift unseen. */
    @ParameterizedTest
    @ValueSource(strings = {
            "EXISTS (SELECT 1 FROM public.blog_user u WHERE u.id = creator_id AND u.username <> 'bot')",
            "article_id IN (SELECT id FROM public.blog_article WHERE content IS NOT NULL)"})
    void aConditionThatReadsAnotherTableIsRefusedWithTheFix(String where) {
        assertThatThrownBy(() -> install(counter("total_elsewhere", where)))
                .hasMessageContaining("@CounterCache on Article.total_elsewhere: where = \"" + where + "\" reads")
                .hasMessageContaining("besides public.blog_comment")
                .hasMessageContaining("name only columns of the source");
        assertThat(db.queryLong("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'countercache%'")).isZero();
    }

    @Test
    void aConditionMayHoldAnyTextEvenTheTriggerBodysQuote() throws Exception {
        install(counter("total_odd", "publish_status <> '$capture$' AND message IS DISTINCT FROM E'it''s \\\\'"));
        db.execute("INSERT INTO blog_article (id) VALUES (1);"
                + "INSERT INTO blog_comment (article_id, publish_status, message) VALUES (1, 'public', 'x'),"
                + " (1, '$capture$', 'y')");
        db.queryLong("SELECT countercache.rollup(100)");
        assertThat(db.queryLong("SELECT total_odd FROM blog_article WHERE id = 1")).isOne();
    }

    /**
     * A text that closes the parenthesis around an operator is the one expression {@code (a) OR (b)} that the checks
     * took it for, wherever the condition is read: between the capture's tests of the key and of a distinct value it
     * would count a comment of no commenter as one more.
     */
    @Test
    void aConditionThatClosesItsParenthesisStaysOneExpression() throws Exception {
        install(new CounterDefinition("Article.either", BlogSchema.ARTICLE, "id", KeyType.BIGINT, "either", "bigint",
                BlogSchema.COMMENT, "article_id", "publish_status = 'public') OR (likes > 5", null,
                io.countercache.Strategy.QUEUE, 0, null, null, "creator_id"));
        db.execute("INSERT INTO blog_user (id) VALUES (31), (32), (33);"
                + "INSERT INTO blog_article (id) VALUES (3);"
                + "INSERT INTO blog_comment (article_id, creator_id, publish_status, likes) VALUES (3, 31, 'private', 9),"
                + " (3, 32, 'private', 1), (3, 33, 'public', 0), (3, NULL, 'public', 0), (NULL, 31, 'public', 0)");
        db.queryLong("SELECT countercache.rollup(100)");
        assertThat(db.queryLong("SELECT either FROM blog_article WHERE id = 3")).as("commenters 31 and 33").isEqualTo(2);
        assertThat(db.queryRows("SELECT counter_id, target_id FROM countercache.orphan"
                + " UNION ALL SELECT counter_id, target_id FROM countercache.dead_letter"))
                .as("deltas for no article").isEmpty();
    }

    @Test
    void aConditionThatFailsAtRunTimeFailsTheWriteNamingTheCounter() throws Exception {
        install(counter("total_risky", "100 / (likes - 3) > 0"));
        db.execute("INSERT INTO blog_article (id) VALUES (2)");
        assertThatThrownBy(() -> db.execute("INSERT INTO blog_comment (article_id, publish_status, likes) VALUES (2, 'public', 3)"))
                .hasMessageContaining("division by zero")
                .hasMessageContaining("/* @CounterCache on Article.total_risky */")
                .hasMessageContaining("100 / (likes - 3) > 0");
    }
}
