package io.countercache;

import io.countercache.testing.RestartablePostgres;
import io.countercache.testing.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.countercache.testing.Await.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An immediate stop of PostgreSQL (SIGQUIT: what a crash does to the database) while writers write, then a restart
 * and a worker that knows nothing of it. For the logged strategies nothing is lost. The unlogged queue is emptied by
 * crash recovery; the first round notices the missing marker and recounts, online, while writers write again. Every
 * strategy ends with every counter equal to its recount, and nobody asked for a recount.
 */
class CrashIT {

    private static final String DRIFT = "SELECT coalesce(sum(abs(d.exact - d.stored - d.pending)), 0)"
            + " FROM countercache.counter k, countercache.drift(k.id, 1000000) d";

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "SLOTTED"})
    void anImmediateStopUnderLoadCostsStalenessNeverAWrongValue(Strategy strategy) throws Exception {
        try (RestartablePostgres pg = RestartablePostgres.start()) {
            TestDatabase db = new TestDatabase("postgres", null, "postgres", "postgres", pg.dataSource());
            BlogSchema.create(db, strategy);
            db.execute("INSERT INTO blog_user (id) SELECT g FROM generate_series(1, 5) g;"
                    + "INSERT INTO blog_article (id) SELECT g FROM generate_series(1, 10) g;"
                    + "INSERT INTO shop VALUES (1, 's'); INSERT INTO product (id, shop_id) VALUES (1, 1), (2, 1);"
                    + "INSERT INTO shelf SELECT g FROM generate_series(1, 3) g;");

            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService pool = Executors.newCachedThreadPool();
            List<Future<Long>> writers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                writers.add(pool.submit(writer(db, new SplittableRandom(i), running)));
            }
            until("writers to commit a few hundred writes",
                    () -> db.queryLong("SELECT count(*) FROM blog_comment") > 300);
            long pendingBeforeStop = db.queryLong("SELECT (SELECT count(*) FROM countercache.delta)"
                    + " + (SELECT count(*) FROM countercache.delta_unlogged) + (SELECT count(*) FROM countercache.slot)");
            pg.immediateStop();                     // mid-load: the writers' next statements fail
            long committed = 0;
            for (Future<Long> w : writers) {
                committed += w.get();
            }
            assertThat(committed).as("writes committed before the stop").isPositive();
            assertThat(pendingBeforeStop).as("deltas pending when the server stopped").isPositive();
            pg.restart();

            long lost = db.queryLong(DRIFT);
            if (strategy == Strategy.UNLOGGED) {
                assertThat(db.queryLong("SELECT count(*) FROM countercache.delta_unlogged"))
                        .as("the unlogged queue after crash recovery").isZero();
                assertThat(lost).as("what the crash took from the unlogged queue").isPositive();
            } else {
                assertThat(lost).as("drift after the restart of a logged strategy").isZero();
            }

            running.set(true);
            Future<Long> after = pool.submit(writer(db, new SplittableRandom(42), running));
            try (RollupWorker worker = RollupWorker.builder(pg.dataSource()).name("crash").batchSize(50)
                    .pollInterval(Duration.ofMillis(10)).build().start()) {
                until("the worker to recount what the crash took, while a writer writes",
                        () -> db.queryLong("SELECT count(*) FROM countercache.recount_job") == 0
                                && db.queryLong(DRIFT) == 0);
                running.set(false);
                assertThat(after.get()).as("writes during the recovery").isPositive();
            }
            pool.shutdown();
            BlogSchema.assertExactAfterRollup(db);
        }
    }

    /** Writes until told to stop or until the server goes away; returns how many transactions committed. */
    private static java.util.concurrent.Callable<Long> writer(TestDatabase db, SplittableRandom r, AtomicBoolean running) {
        return () -> {
            long committed = 0;
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                while (running.get()) {
                    int article = 1 + r.nextInt(10);
                    st.execute(switch (r.nextInt(6)) {
                        case 0, 1 -> "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES ("
                                + (1 + r.nextInt(5)) + ", " + article + ", 'public', 2)";
                        case 2 -> "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) SELECT"
                                + " 1 + g % 5, " + article + ", 'private', 1 FROM generate_series(1, 20) g";
                        case 3 -> "UPDATE blog_comment SET publish_status = 'public', article_id = " + article
                                + " WHERE id IN (SELECT id FROM blog_comment ORDER BY random() LIMIT 3)";
                        case 4 -> "INSERT INTO review (product_id, stars, approved) VALUES (" + (1 + r.nextInt(2))
                                + ", 3, true); INSERT INTO book (shelf_id) VALUES (" + (1 + r.nextInt(4)) + ")";
                        default -> "DELETE FROM blog_comment WHERE id IN (SELECT id FROM blog_comment"
                                + " WHERE article_id = " + article + " LIMIT 2)";
                    });
                    c.commit();
                    committed++;
                }
            } catch (SQLException e) {
                // the server stopped under the writer: its open transaction is gone with it
            }
            return committed;
        };
    }
}
