package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static io.countercache.BlogSchema.SEAT_GAMES;
import static io.countercache.BlogSchema.SEAT_WINS;
import static io.countercache.BlogSchema.TENANT_USER_POSTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Counters of a target keyed by two columns ({@code BlogSchema.SEAT_GAMES}: a player's games in a league, kept in the
 * seat row keyed by (player_id, league_id); {@code SEAT_WINS}: the sum of their positive scores): every write moves the
 * count of the seat its two foreign key columns point at, a seat whose key changes or that is deleted hands its counts
 * back, and each seat equals a recount of its games, under every strategy.
 */
class PairKeysIT {

    private TestDatabase db;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(PairKeysIT.class);
        // beside the others, whose recount assertExact checks too
        BlogSchema.create(db, strategy, java.util.stream.Stream.concat(BlogSchema.ALL.stream(),
                java.util.stream.Stream.of(SEAT_GAMES, SEAT_WINS)).toList());
        // a negative league: its keys come after every other in the packed order, which a batched recount wraps past
        db.execute("INSERT INTO player (id) VALUES (1), (2), (3);"
                + "INSERT INTO seat (player_id, league_id) SELECT p, l FROM generate_series(1, 3) p,"
                + " (VALUES (1), (2), (-5)) v(l)");
    }

    private void assertExact() {
        BlogSchema.assertExactWithoutDrift(db);
    }

    private List<List<String>> seats() {
        return db.queryRows("SELECT league_id, player_id, games, wins FROM seat WHERE games <> 0 OR wins <> 0"
                + " ORDER BY 1, 2");
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void everyWriteMovesTheCountOfTheSeatBothColumnsPointAt(Strategy strategy) throws Exception {
        install(strategy);
        db.execute("INSERT INTO game (challenger_id, league_id, score) VALUES (1, 1, 3), (1, 2, 0), (2, 1, 5),"
                + " (2, NULL, 7), (NULL, 1, 9)");   // a game with either column NULL counts for no seat
        assertThat(db.queryRows("SELECT value::bigint FROM countercache.exact(" + SEAT_GAMES.id() + ", NULL,"
                + " ARRAY[countercache.pair_key(1, 1), countercache.pair_key(1, 2), countercache.pair_key(1, 3)])"
                + " ORDER BY target_uuid")).as("exact reads: the seats of league 1 (players 1 and 2; 3 has none)")
                .containsExactly(List.of("1"), List.of("1"), List.of("0"));
        assertExact();
        assertThat(seats()).containsExactly(List.of("1", "1", "1", "3"), List.of("1", "2", "1", "5"),
                List.of("2", "1", "1", "0"));

        db.execute("UPDATE game SET league_id = -5 WHERE challenger_id = 1 AND league_id = 1;"   // the first part moves
                + "UPDATE game SET challenger_id = 3, score = score + 1 WHERE league_id = 2;"      // the second, and a sum
                + "UPDATE game SET league_id = 2 WHERE league_id IS NULL AND challenger_id = 2");  // from no seat to one
        assertExact();
        assertThat(seats()).containsExactly(List.of("-5", "1", "1", "3"), List.of("1", "2", "1", "5"),
                List.of("2", "2", "1", "7"), List.of("2", "3", "1", "1"));

        db.execute("INSERT INTO game (challenger_id, league_id, score) SELECT 1 + g % 3, (ARRAY[1, 2, -5])[1 + g % 3],"
                + " g % 4 - 1 FROM generate_series(1, 3000) g");                                   // a bulk insert
        db.execute("UPDATE game SET league_id = 1 WHERE id % 7 = 0; DELETE FROM game WHERE id % 5 = 0");
        assertExact();

        // a seat whose key changes hands its counts back (to the new key, and the old key's games to its old seat
        // once it is there again); a seat deleted leaves its games' counts waiting, and they come back with it
        db.execute("UPDATE seat SET player_id = 9 WHERE player_id = 1 AND league_id = 2");
        db.execute("DELETE FROM seat WHERE player_id = 2 AND league_id = -5");
        assertExact();
        db.execute("UPDATE game SET challenger_id = 9 WHERE challenger_id = 1 AND league_id = 2 AND id % 2 = 0;"
                + "INSERT INTO seat (player_id, league_id) VALUES (2, -5), (1, 2)");
        assertExact();
        assertThat(db.queryLong("SELECT sum(games) FROM seat")).isEqualTo(
                db.queryLong("SELECT count(*) FROM game g JOIN seat s ON (s.league_id, s.player_id) ="
                        + " (g.league_id, g.challenger_id)"));

        db.execute("TRUNCATE game");
        assertExact();
        assertThat(db.queryLong("SELECT sum(games) + sum(wins) FROM seat")).isZero();
    }

    @Test
    void aSeatWrongOrDeletedIsFoundByDriftAndRecountedInBatches() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO game (challenger_id, league_id, score) SELECT 1 + g % 3, (ARRAY[1, 2, -5])[1 + g % 3],"
                + " g % 4 FROM generate_series(1, 300) g");
        assertExact();
        db.execute("UPDATE seat SET games = games + 1 WHERE league_id = -5 AND player_id = 3;"
                + "UPDATE seat SET wins = 0 WHERE league_id = 1");
        assertThat(db.queryRows("SELECT key FROM countercache.drift(" + SEAT_GAMES.id() + ")")).containsExactly(
                db.queryRows("SELECT countercache.pair_key(-5, 3)").get(0));
        // batches of 2 seats, each reading the games of one range of leagues, one of them past the wrap
        db.execute("SELECT countercache.request_recount(" + SEAT_GAMES.id() + "), countercache.request_recount("
                + SEAT_WINS.id() + ")");
        db.execute("CALL countercache.run_recounts(2)");
        assertExact();
    }

    private void assertUsersExact() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows(BlogSchema.PLAYER_MISMATCHES)).as("(counter, tenant user, posts, recount)").isEmpty();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void aKeyWithAUuidPartIsHashedAndCountedThroughEveryChange(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(PairKeysIT.class);
        db.execute(BlogSchema.TABLES + BlogSchema.tenantUsers(4));
        BlogSchema.install(db, List.of(TENANT_USER_POSTS.withStrategy(strategy, 4)));
        String tenant = "00000000-0000-4000-8000-000000000001";
        assertThat(db.queryRows("SELECT countercache_key FROM tenant_user WHERE tenant = '" + tenant + "' AND id = 2"))
                .as("the database's digest is the one Java computes for exact reads by identifier")
                .containsExactly(List.of(CounterDefinition.Pair.key(java.util.UUID.fromString(tenant), 2L).toString()));

        db.execute("INSERT INTO tenant_post (tenant, user_id) VALUES ('" + tenant + "', 2), ('" + tenant + "', 2),"
                + " ('" + tenant + "', NULL), (NULL, 2)");   // either column NULL: no user
        assertThat(db.queryRows("SELECT value::bigint FROM countercache.exact(" + TENANT_USER_POSTS.id() + ", NULL,"
                + " ARRAY[countercache.digest_key('" + tenant + "', '2')])")).containsExactly(List.of("2"));
        assertUsersExact();

        db.execute("INSERT INTO tenant_post (tenant, user_id, hidden) SELECT ('00000000-0000-4000-8000-00000000000'"
                + " || (1 + g % 3))::uuid, 1 + g % 4, g % 5 = 0 FROM generate_series(1, 2000) g");   // planned anew
        db.execute("UPDATE tenant_post SET user_id = 1 + user_id % 4 WHERE id % 3 = 0;"               // the second part
                + "UPDATE tenant_post SET tenant = '" + tenant + "' WHERE id % 7 = 0;"                   // the first
                + "UPDATE tenant_post SET hidden = NOT hidden WHERE id % 11 = 0;"
                + "DELETE FROM tenant_post WHERE id % 13 = 0");
        assertUsersExact();

        // a user whose key changes takes its posts along (ON UPDATE CASCADE), one deleted takes them away
        db.execute("UPDATE tenant_user SET id = 9 WHERE tenant = '" + tenant + "' AND id = 3;"
                + "DELETE FROM tenant_user WHERE tenant = '" + tenant + "' AND id = 4");
        assertUsersExact();
        db.execute("TRUNCATE tenant_post");
        assertUsersExact();
        assertThat(db.queryLong("SELECT sum(posts) FROM tenant_user")).isZero();
    }

    @Test
    void aHashedKeyIsRecountedInBatchesThatReadTheWholeSource() throws Exception {
        db = TestPostgres.newDatabase(PairKeysIT.class);
        db.execute(BlogSchema.TABLES + BlogSchema.tenantUsers(4));
        BlogSchema.install(db, List.of(TENANT_USER_POSTS));
        db.execute("INSERT INTO tenant_post (tenant, user_id) SELECT ('00000000-0000-4000-8000-00000000000'"
                + " || (1 + g % 3))::uuid, 1 + g % 4 FROM generate_series(1, 300) g");
        assertUsersExact();
        db.execute("UPDATE tenant_user SET posts = posts + 5 WHERE id = 2");
        assertThat(db.queryRows("SELECT key FROM countercache.drift(" + TENANT_USER_POSTS.id() + ")")).hasSize(3);
        db.execute("SELECT countercache.request_recount(" + TENANT_USER_POSTS.id() + ")");
        db.execute("CALL countercache.run_recounts(2)");
        assertUsersExact();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void aKeyWithATextPartIsHashedWithEachSeparatorEscaped(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(PairKeysIT.class);
        db.execute(BlogSchema.TABLES + "CREATE TABLE named_seat (league text, player varchar(20), games bigint NOT NULL"
                + " DEFAULT 0, PRIMARY KEY (league, player));"
                + "ALTER TABLE game ADD COLUMN league text, ADD COLUMN player varchar(20), ADD FOREIGN KEY (league,"
                + " player) REFERENCES named_seat ON UPDATE CASCADE ON DELETE SET NULL");
        CounterDefinition named = new CounterDefinition("NamedSeat.games", new TableName("public", "named_seat"),
                "league", KeyType.UUID, "games", "bigint", BlogSchema.GAME, "league", null, null)
                .withPair(new CounterDefinition.Pair(List.of("league", "player"), List.of("league", "player")))
                .withStrategy(strategy, 4);
        BlogSchema.install(db, List.of(named));
        // joined by '/' as they are, the first two keys would read alike; escaped, neither does, nor the third
        List<List<String>> seats = List.of(List.of("a/b", "c"), List.of("a", "b/c"), List.of("a\\", "/c"),
                List.of("Süd", "ß"));
        for (List<String> seat : seats) {
            db.execute("INSERT INTO named_seat (league, player) VALUES ('" + seat.get(0) + "', '" + seat.get(1) + "')");
            assertThat(db.queryRows("SELECT countercache_key FROM named_seat WHERE league = '" + seat.get(0)
                    + "' AND player = '" + seat.get(1) + "'"))
                    .as("the database's digest of %s is the one Java computes for exact reads by identifier", seat)
                    .containsExactly(List.of(CounterDefinition.Pair.key(seat.get(0), seat.get(1)).toString()));
        }
        db.execute("INSERT INTO game (league, player) SELECT s.league, s.player FROM named_seat s,"
                + " generate_series(1, length(s.league) + length(s.player)) g");   // 4, 4, 4 and 4 games
        db.execute("UPDATE game SET league = 'a', player = 'b/c' WHERE id % 4 = 0;"   // to the second seat
                + "UPDATE named_seat SET player = 'ss' WHERE player = 'ß';"           // a key changed, by cascade
                + "DELETE FROM game WHERE id = 1");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows("SELECT s.league, s.player, s.games, (SELECT count(*) FROM game g WHERE g.league ="
                + " s.league AND g.player = s.player) FROM named_seat s WHERE s.games <> (SELECT count(*) FROM game g"
                + " WHERE g.league = s.league AND g.player = s.player)")).as("seats whose count is not a recount")
                .isEmpty();
        assertThat(db.queryLong("SELECT sum(games) FROM named_seat")).isEqualTo(15);
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }

    @Test
    void aKeyTheLibraryCannotPackIsRefusedWithItsFix() throws Exception {
        db = TestPostgres.newDatabase(PairKeysIT.class);
        db.execute(BlogSchema.TABLES + "CREATE TABLE named_seat (player_id bigint, league date, games bigint,"
                + " PRIMARY KEY (player_id, league)); ALTER TABLE game ADD COLUMN league date");
        CounterDefinition named = new CounterDefinition("NamedSeat.games", new TableName("public", "named_seat"),
                "league", KeyType.INTEGER, "games", "bigint", BlogSchema.GAME, "league", null, null)
                .withPair(new CounterDefinition.Pair(List.of("league", "player_id"), List.of("league", "challenger_id")));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(named)))
                .hasMessageContaining("@CounterCache on NamedSeat.games: key column public.named_seat.league is date")
                .hasMessageContaining("an integer, a bigint, a uuid, a text or a varchar");
        // a text that a collation takes as equal to another in other characters would hash apart from it
        db.execute("CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);"
                + "ALTER TABLE named_seat ALTER COLUMN league TYPE text COLLATE ci;"
                + "ALTER TABLE game ALTER COLUMN league TYPE text COLLATE ci");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(named)))
                .hasMessageContaining("key column public.named_seat.league has a nondeterministic collation")
                .hasMessageContaining("give the key column a deterministic collation");

        db.execute("ALTER TABLE seat ADD COLUMN countercache_key uuid");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(SEAT_GAMES)))
                .hasMessageContaining("public.seat.countercache_key is not the key the library keeps of"
                        + " (league_id, player_id)")
                .hasMessageContaining("drop the column countercache_key");
        assertThatThrownBy(() -> SEAT_GAMES.withMoreFks(List.of("opponent_id")))
                .hasMessageContaining("keyed by two columns counts or sums the rows of a source that points straight");

        // installed, its columns are guarded: a migration that drops the second foreign key column is refused
        db.execute("ALTER TABLE seat DROP COLUMN countercache_key");
        BlogSchema.install(db, List.of(SEAT_GAMES));
        assertThat(db.queryRows("SELECT a.attgenerated FROM pg_attribute a WHERE a.attrelid = 'seat'::regclass"
                + " AND a.attname = 'countercache_key'")).as("the generated key").containsExactly(List.of("s"));
        // its parts in the other order pack other keys: the column the first order made is not kept for them
        CounterDefinition swapped = new CounterDefinition("Seat.games", BlogSchema.SEAT, "player_id", KeyType.BIGINT,
                "games", "bigint", BlogSchema.GAME, "challenger_id", null, null)
                .withPair(new CounterDefinition.Pair(List.of("player_id", "league_id"), List.of("challenger_id", "league_id")));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(swapped)))
                .hasMessageContaining("public.seat.countercache_key is not the key the library keeps of"
                        + " (player_id, league_id)");
        assertThatThrownBy(() -> db.execute("ALTER TABLE game DROP COLUMN challenger_id CASCADE"))
                .hasMessageContaining("Seat.games");
    }
}
