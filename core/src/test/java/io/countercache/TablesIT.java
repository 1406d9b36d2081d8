package io.countercache;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static io.countercache.BlogSchema.PLAYER_MATCHES;
import static io.countercache.BlogSchema.PLAYER_MATCH_POINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A counter fed by several tables, as the concrete classes of a {@code TABLE_PER_CLASS} hierarchy are:
 * {@code BlogSchema.PLAYER_MATCHES} counts the games and the friendlies of each challenger, {@code PLAYER_MATCH_POINTS}
 * sums the positive scores of both for both their players (several tables and several associations at once). Each
 * step ends with every counter equal to its recount ({@code BlogSchema.PLAYER_MISMATCHES}), no drift and no dead letter.
 */
class TablesIT {

    private static final String VALUES = "SELECT id, matches, match_points FROM player ORDER BY id";

    private TestDatabase db;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(TablesIT.class);
        db.execute(BlogSchema.TABLES);
        BlogSchema.install(db, List.of(PLAYER_MATCHES.withStrategy(strategy, 4),
                PLAYER_MATCH_POINTS.withStrategy(strategy, 4)));
        db.execute("INSERT INTO player (id) SELECT g FROM generate_series(1, 5) g");
    }

    private void assertExact() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows(BlogSchema.PLAYER_MISMATCHES)).as("(counter, player, value, recount)").isEmpty();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM countercache.dead_letter")).isZero();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void theRowsOfEveryTableCountThroughEveryChange(Strategy strategy) throws Exception {
        install(strategy);
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) VALUES (1, 2, 3)");
        db.execute("INSERT INTO friendly (challenger_id, opponent_id, score) VALUES (1, 3, 4)");
        db.execute("INSERT INTO friendly (challenger_id, opponent_id, score) VALUES (2, NULL, -1)");
        assertExact();
        assertThat(db.queryRows(VALUES)).as("player 1 has a game and a friendly; player 2 a game's points")
                .startsWith(List.of("1", "2", "7"), List.of("2", "1", "3"), List.of("3", "0", "4"));
        db.execute("INSERT INTO friendly (challenger_id, opponent_id, score) VALUES (2, 1, 1)");
        assertThat(db.queryRows("SELECT target_id, value::bigint FROM countercache.exact(" + PLAYER_MATCHES.id()
                + ", ARRAY[1, 2]) ORDER BY 1")).as("an exact read adds what is queued from the second table")
                .containsExactly(List.of("1", "2"), List.of("2", "2"));

        // each table alone: one row, a bulk statement of each plan tier, a reparent, a rollback, a delete
        db.execute("UPDATE friendly SET challenger_id = 4 WHERE challenger_id = 1");
        db.execute("UPDATE friendly SET score = 5 WHERE challenger_id = 2");
        db.execute("INSERT INTO friendly (challenger_id, opponent_id, score)"
                + " SELECT 1 + g % 5, 1 + (g * 3) % 5, g % 7 - 2 FROM generate_series(1, 400) g");
        db.execute("INSERT INTO game (challenger_id, opponent_id, score)"
                + " SELECT 1 + g % 4, 1 + g % 5, g % 5 FROM generate_series(1, 1500) g");
        assertExact();
        db.execute("UPDATE friendly SET challenger_id = opponent_id, opponent_id = challenger_id WHERE id % 3 = 0");
        db.execute("DELETE FROM game WHERE id % 4 = 0");
        db.execute("BEGIN; INSERT INTO friendly (challenger_id, opponent_id, score) VALUES (2, 2, 9); ROLLBACK");
        assertExact();

        db.execute("DELETE FROM player WHERE id = 2");   // cascades into both tables
        assertExact();
        db.execute("TRUNCATE friendly");                 // takes back the friendlies only
        assertExact();
        assertThat(db.queryLong("SELECT sum(matches) FROM player")).isEqualTo(db.queryLong("SELECT count(*) FROM game"));
        db.execute("TRUNCATE game");
        assertExact();
        assertThat(db.queryRows(VALUES)).allSatisfy(r -> assertThat(r.subList(1, 3)).containsOnly("0"));
    }

    @Test
    void aRecountReadsEveryTableAndRepairsTheColumn() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO game (challenger_id, opponent_id, score) SELECT 1 + g % 3, 2, g FROM generate_series(1, 30) g;"
                + "INSERT INTO friendly (challenger_id, opponent_id, score) SELECT 1 + g % 3, 3, g FROM generate_series(1, 9) g");
        assertExact();
        db.execute("UPDATE player SET matches = matches + 7 WHERE id = 2");
        assertThat(db.queryRows("SELECT d.key, d.stored, d.exact FROM countercache.drift(" + PLAYER_MATCHES.id() + ") d"))
                .containsExactly(List.of("2", "20", "13"));
        db.execute("SELECT countercache.request_recount(" + PLAYER_MATCHES.id() + ")");
        db.execute("CALL countercache.run_recounts()");
        assertExact();
        assertThat(db.queryLong("SELECT matches FROM player WHERE id = 2")).isEqualTo(13);
    }

    /** Each table gets the capture triggers; forgetting the counter takes them off the second table too. */
    @Test
    void everyTableIsCapturedAndGuardedAndForgettingTheCounterClearsThemAll() throws Exception {
        install(Strategy.QUEUE);
        String captures = "SELECT c.relname, count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                + " WHERE t.tgname LIKE 'countercache\\_%' AND c.relname IN ('game', 'friendly') GROUP BY 1 ORDER BY 1";
        assertThat(db.queryRows(captures)).containsExactly(List.of("friendly", "4"), List.of("game", "4"));
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();

        assertThatThrownBy(() -> db.executeInTransaction("ALTER TABLE friendly RENAME COLUMN score TO points"))
                .hasMessageContaining("countercache: ALTER TABLE would break")
                .hasMessageContaining("@CounterCache on Player.matchPoints: sum column public.friendly.score is missing");
        db.execute("DROP TRIGGER countercache_insert ON friendly");
        assertThat(db.queryRows("SELECT problem FROM countercache.installed_problems()"))
                .anySatisfy(r -> assertThat(r.get(0)).contains("capture triggers of public.friendly: countercache_insert"
                        + " is missing"));
        db.execute("SELECT countercache.install_triggers('public', 'friendly')");
        assertThat(db.queryRows(captures)).containsExactly(List.of("friendly", "4"), List.of("game", "4"));

        db.execute("SELECT countercache.prune('" + io.countercache.spi.Installation.DEFAULT_CHANGELOG + "', '{}')");
        assertThat(db.queryRows(captures)).isEmpty();
    }

    @Test
    void aTableNamedTwiceMissingOrWithoutAColumnIsRefusedWithTheFix() throws Exception {
        db = TestPostgres.newDatabase(TablesIT.class);
        db.execute(BlogSchema.TABLES);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(PLAYER_MATCHES.withMoreTables(List.of("game")))))
                .hasMessageContaining("@CounterCache on Player.matches: table public.game is named more than once")
                .hasMessageContaining("name each table once");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(PLAYER_MATCHES.withMoreTables(List.of("tournament")))))
                .hasMessageContaining("@CounterCache on Player.matches: source table public.tournament does not exist");
        db.execute("ALTER TABLE friendly DROP COLUMN score");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(PLAYER_MATCH_POINTS)))
                .hasMessageContaining("@CounterCache on Player.matchPoints: sum column public.friendly.score is missing");
        assertThatThrownBy(() -> BlogSchema.ARTICLE_MOST_LIKES.withMoreTables(List.of("old_comment")))
                .hasMessageContaining("@CounterCache on Article.mostLikes: several tables can feed a count or a sum of"
                        + " their own rows only");
    }
}
