package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static io.countercache.BlogSchema.PLAYER_GAMES;
import static io.countercache.BlogSchema.PLAYER_POINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A counter fed by several associations ({@code via = {"challenger", "opponent"}}): a game counts for its challenger
 * and for its opponent, twice for a player on both sides, once for a side that is NULL. {@code BlogSchema.PLAYER_GAMES}
 * counts games, {@code PLAYER_POINTS} sums the score of those with a positive one. Each step ends with every counter
 * equal to its recount ({@code BlogSchema.MISMATCHES}) and no drift.
 */
class FeedsIT {

    private static final String VALUES = "SELECT id, games, points FROM player ORDER BY id";

    private TestDatabase db;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(FeedsIT.class);
        db.execute(BlogSchema.TABLES);
        BlogSchema.install(db, List.of(PLAYER_GAMES.withStrategy(strategy, 4), PLAYER_POINTS.withStrategy(strategy, 4)));
        db.execute("INSERT INTO player (id) SELECT g FROM generate_series(1, 5) g");
    }

    private void assertExact() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows(BlogSchema.PLAYER_MISMATCHES)).as("(counter, player, value, recount)").isEmpty();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void aGameCountsForEachOfItsPlayersThroughEveryChange(Strategy strategy) throws Exception {
        install(strategy);
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) VALUES (1, 2, 3)");
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) VALUES (3, 3, 1)");
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) VALUES (1, NULL, 2)");
        assertExact();
        assertThat(db.queryRows(VALUES)).as("player 3 plays both sides of one game; player 1 one game alone")
                .startsWith(List.of("1", "2", "5"), List.of("2", "1", "3"), List.of("3", "2", "2"));

        // one row: only the opponent changes, which only the second association reads
        db.execute("UPDATE game SET opponent_id = 4 WHERE challenger_id = 1 AND opponent_id = 2");
        assertExact();
        assertThat(db.queryRows(VALUES).get(3)).containsExactly("4", "1", "3");
        db.execute("UPDATE game SET challenger_id = opponent_id, opponent_id = challenger_id");   // sides swap
        db.execute("UPDATE game SET score = 0 WHERE challenger_id = 4");                            // leaves the sum
        db.execute("UPDATE game SET opponent_id = 5 WHERE opponent_id IS NULL");
        assertExact();

        db.execute("INSERT INTO game (challenger_id, opponent_id, score)"
                + " SELECT 1 + g % 5, 1 + (g * 3) % 5, g % 7 - 2 FROM generate_series(1, 400) g");      // the cached fold
        db.execute("INSERT INTO game (challenger_id, opponent_id, score)"
                + " SELECT 1 + g % 4, CASE WHEN g % 9 = 0 THEN NULL ELSE 1 + g % 5 END, g % 5"
                + " FROM generate_series(1, 1500) g");                                                   // planned anew
        assertExact();
        db.execute("UPDATE game SET challenger_id = opponent_id, opponent_id = challenger_id WHERE id % 3 = 0");
        db.execute("DELETE FROM game WHERE id % 4 = 0");
        db.execute("BEGIN; INSERT INTO game (challenger_id, opponent_id, score) VALUES (2, 2, 9); ROLLBACK");
        assertExact();

        db.execute("DELETE FROM player WHERE id = 2");   // its games as challenger go, as opponent keep one player
        assertExact();
        db.execute("TRUNCATE game");
        assertExact();
        assertThat(db.queryRows(VALUES)).allSatisfy(r -> assertThat(r.subList(1, 3)).containsOnly("0"));
    }

    @Test
    void anUpdateThatChangesNeitherAssociationNorWhatIsCountedQueuesNothing() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) SELECT 1, 2, g FROM generate_series(1, 3) g");
        assertExact();
        db.execute("UPDATE game SET score = score WHERE id = 1");
        db.execute("UPDATE game SET challenger_id = challenger_id, opponent_id = opponent_id");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isZero();
        db.execute("UPDATE game SET opponent_id = 3 WHERE id = 1");
        assertThat(db.queryRows("SELECT target_id, delta FROM countercache.delta ORDER BY target_id, delta"))
                .as("the game and its score leave player 2 for player 3")
                .containsExactly(List.of("2", "-1"), List.of("2", "-1"), List.of("3", "1"), List.of("3", "1"));
    }

    @Test
    void aRecountFindsAndRepairsEachAssociationsShare() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO game (challenger_id, opponent_id, score)"
                + " SELECT 1 + g % 3, 1 + (g + 1) % 3, g FROM generate_series(1, 30) g");
        assertExact();
        db.execute("UPDATE player SET games = games + 7 WHERE id = 2");
        assertThat(db.queryRows("SELECT d.key, d.stored, d.exact FROM countercache.drift(" + PLAYER_GAMES.id() + ") d"))
                .containsExactly(List.of("2", "27", "20"));
        db.execute("SELECT countercache.request_recount(" + PLAYER_GAMES.id() + ")");
        db.execute("CALL countercache.run_recounts()");
        assertExact();
        assertThat(db.queryLong("SELECT games FROM player WHERE id = 2")).isEqualTo(20);
    }

    /**
     * The DDL guard reads every foreign key of a counter: renaming the second one breaks both counters, and dropping
     * both breaks them still, counted once each.
     */
    @Test
    void renamingTheSecondForeignKeyIsRefusedByTheDdlGuard() throws Exception {
        install(Strategy.QUEUE);
        assertThatThrownBy(() -> db.executeInTransaction("ALTER TABLE game RENAME COLUMN opponent_id TO rival_id"))
                .hasMessageContaining("countercache: ALTER TABLE would break 2 counters:")
                .hasMessageContaining("@CounterCache on Player.games: foreign key column public.game.opponent_id is"
                        + " missing");
        // both foreign keys dropped: two problems of each counter, and still two counters (the count said four)
        assertThatThrownBy(() -> db.executeInTransaction("ALTER TABLE game DROP COLUMN challenger_id,"
                + " DROP COLUMN opponent_id"))
                .hasMessageContaining("countercache: ALTER TABLE would break 2 counters:")
                .hasMessageContaining("@CounterCache on Player.games: foreign key column public.game.challenger_id is"
                        + " missing")
                .hasMessageContaining("@CounterCache on Player.games: foreign key column public.game.opponent_id is"
                        + " missing");
    }

    @Test
    void aForeignKeyNamedTwiceOrMissingIsRefusedWithTheFix() throws Exception {
        db = TestPostgres.newDatabase(FeedsIT.class);
        db.execute(BlogSchema.TABLES);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(PLAYER_GAMES.withMoreFks(List.of("challenger_id")))))
                .hasMessageContaining("@CounterCache on Player.games: foreign key challenger_id is named more than once")
                .hasMessageContaining("name each foreign key once");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(PLAYER_GAMES.withMoreFks(List.of("referee_id")))))
                .hasMessageContaining("@CounterCache on Player.games: foreign key column public.game.referee_id is missing")
                .hasMessageContaining("give the foreign key column the type of the key it points at");
        assertThatThrownBy(() -> BlogSchema.ARTICLE_MOST_LIKES.withMoreFks(List.of("creator_id")))
                .hasMessageContaining("@CounterCache on Article.mostLikes: several associations can feed a count or a"
                        + " sum of the source's own rows only");
    }
}
