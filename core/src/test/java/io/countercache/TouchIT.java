package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static io.countercache.BlogSchema.ARTICLE_COMMENTS;
import static io.countercache.BlogSchema.ARTICLE_LIKES;
import static io.countercache.BlogSchema.ARTICLE_PUBLIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code touch}: a counter stamps a timestamp column of its target with the time of the transaction that changes
 * it, in the same update, under every strategy; a counter without a touch, or a change that nets to nothing, leaves
 * the stamp alone. {@code BlogSchema.ARTICLE_PUBLIC} touches {@code blog_article.updated_at}.
 */
class TouchIT {

    private static final String LONG_AGO = "UPDATE blog_article SET updated_at = '2000-01-01Z'";
    private static final String STAMPS = "SELECT id, updated_at > '2000-01-01Z' FROM blog_article ORDER BY id";

    private TestDatabase db;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(TouchIT.class);
        db.execute(BlogSchema.TABLES);
        BlogSchema.install(db, List.of(ARTICLE_PUBLIC.withStrategy(strategy, 4), ARTICLE_LIKES.withStrategy(strategy, 4)));
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);" + LONG_AGO);
    }

    /** Rolls the queue up and compares both counters with a recount of their source. */
    private void assertExactAfterRollup() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    private void comment(String status, int likes) {
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, 1, '"
                + status + "', " + likes + ")");
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void aChangeOfTheCounterStampsItsRowAndNothingElseDoes(Strategy strategy) throws Exception {
        install(strategy);
        comment("public", 3);
        assertExactAfterRollup();
        assertThat(db.queryRows(STAMPS)).as("the article counted, and the one not")
                .containsExactly(List.of("1", "t"), List.of("2", "f"));

        db.execute(LONG_AGO);
        comment("draft", 4);          // only the likes, which touch nothing, change
        db.execute("UPDATE blog_comment SET likes = likes + 1");
        assertExactAfterRollup();
        assertThat(db.queryRows(STAMPS)).containsExactly(List.of("1", "f"), List.of("2", "f"));
        assertThat(db.queryLong("SELECT total_likes FROM blog_article WHERE id = 1")).isEqualTo(9);

        db.execute("UPDATE blog_comment SET publish_status = 'public' WHERE publish_status = 'draft'");
        assertExactAfterRollup();
        assertThat(db.queryRows(STAMPS)).containsExactly(List.of("1", "t"), List.of("2", "f"));
        assertThat(db.queryLong("SELECT total_public_comments FROM blog_article WHERE id = 1")).isEqualTo(2);
    }

    /** A +1 and a -1 folded by one round change nothing, so they stamp nothing (the direct strategy has no rounds). */
    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED"})
    void changesThatNetToNothingInARoundStampNothing(Strategy strategy) throws Exception {
        install(strategy);
        comment("public", 1);
        db.execute("DELETE FROM blog_comment");
        assertExactAfterRollup();
        assertThat(db.queryRows(STAMPS)).containsExactly(List.of("1", "f"), List.of("2", "f"));
    }

    @Test
    void aTouchThatIsNoTimestampOrACounterIsRefusedWithTheFix() throws Exception {
        db = TestPostgres.newDatabase(TouchIT.class);
        db.execute(BlogSchema.TABLES);
        CounterDefinition text = ARTICLE_COMMENTS.withTouch("content"), missing = ARTICLE_COMMENTS.withTouch("edited_at");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(text)))
                .hasMessageContaining("@CounterCache on Article.totalComments: touch column public.blog_article.content is text")
                .hasMessageContaining("touch a timestamp column of the target");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(missing)))
                .hasMessageContaining("touch column public.blog_article.edited_at is missing");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_LIKES, ARTICLE_COMMENTS.withTouch("total_likes"))))
                .hasMessageContaining("touch column public.blog_article.total_likes is");
    }
}
