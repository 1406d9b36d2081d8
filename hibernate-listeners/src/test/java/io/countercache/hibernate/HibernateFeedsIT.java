package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@code via = {"challenger", "opponent"}} on {@link Player}: one counter fed by two many-to-ones of {@link Game};
 * writes through Hibernate, bulk JPQL and native SQL count for both players and equal a recount.
 */
class HibernateFeedsIT {

    private static final List<Class<?>> MODEL = List.of(Player.class, Game.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateFeedsIT.class);
        emf = Units.boot(db, "feeds", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    @Test
    void bothAssociationsFeedTheCounter() {
        assertThat(EntityModel.counters(MODEL, Map.of())).extracting(CounterDefinition::declaredBy,
                        CounterDefinition::sourceFk, CounterDefinition::moreFks)
                .containsExactly(tuple("Player.games", "challenger_id", List.of("opponent_id")),
                        tuple("Player.points", "challenger_id", List.of("opponent_id")));
    }

    @Test
    void gamesCountForEachPlayerWhicheverWayTheyAreWritten() {
        emf.runInTransaction(em -> {
            Player[] players = new Player[3];
            for (int i = 0; i < 3; i++) {
                players[i] = new Player();
                players[i].id = i + 1L;
                em.persist(players[i]);
            }
            long id = 1;
            for (Player[] sides : new Player[][] {{players[0], players[1]}, {players[1], players[2]}, {players[2], players[2]}}) {
                Game g = new Game();
                g.id = id++;
                g.challenger = sides[0];
                g.opponent = sides[1];
                g.score = (int) id;
                em.persist(g);
            }
        });
        long exact = emf.callInTransaction(em -> CounterCaches.exact(em, Player.class, "games", 3L));
        assertThat(exact).as("player 3 is on both sides of one game").isEqualTo(3);

        emf.runInTransaction(em -> em.createQuery("UPDATE Game g SET g.opponent = g.challenger WHERE g.id = 1").executeUpdate());
        db.execute("UPDATE game SET challenger_id = opponent_id, opponent_id = challenger_id, score = -score WHERE id = 2");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        List<Player> players = emf.callInTransaction(em -> em.createQuery("SELECT p FROM Player p ORDER BY p.id",
                Player.class).getResultList());
        assertThat(players).extracting(p -> p.id, p -> p.games, p -> p.points)
                .containsExactly(tuple(1L, 2L, 4L), tuple(2L, 1L, 0L), tuple(3L, 3L, 8L));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }
}
