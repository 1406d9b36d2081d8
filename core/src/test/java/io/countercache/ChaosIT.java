package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Everything at once, at random: writers (single rows, bulk statements, flips, reparents, deletes, a tenth rolled
 * back), two rollup workers, recounts (whole and in batches) every second or so, sessions holding random target rows
 * and parent rows locked for a few hundred milliseconds and then updating the target, targets deleted and inserted
 * again with the same key, and an occasional TRUNCATE of a source. A watcher fails the test if a rollup ever waits
 * for a lock an application session holds. After the load stops and the queue is drained, every counter equals its recount.
 *
 * <p>It runs once per strategy, every counter kept by that strategy. {@code -Dchaos.seconds=N} (default 8) sets how long the load runs; {@code -Dchaos.seed=N} replays a run.
 */
class ChaosIT {

    private static final int ARTICLES = 12;
    private static final int USERS = 6;
    /**
     * Products 1 to 4 stay in their shop (lockParentThenUpdate renames them under the shop's lock); 5 to 8 move
     * between shops and are deleted and inserted again. Were one product in both, a mover and a renamer could
     * deadlock on it and the shop among themselves, which says nothing of the rollup.
     */
    private static final int PRODUCTS = 4;
    private static final Set<String> EXPECTED = Set.of(
            "40P01",   // writers deadlock among themselves on the comment rows they update in random order
            "23503",   // a comment for an article another session just deleted
            "23505",   // an article inserted again by two sessions at once
            "55P03");  // lock_timeout of the sessions that wait on others

    /** The application_name of the session that takes generations beside the workers. */
    private static final String TAKE_ACTOR = "chaos take";
    /** A rollup waiting for a lock an application session holds (rounds may briefly wait for one another). */
    private static final String ROLLUP_WAITS = "SELECT a.wait_event || ' on a row of ' || coalesce((SELECT"
            + " string_agg(l.relation::regclass::text, ', ') FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'tuple'),"
            + " 'no table') || ' held by: ' || left(b.query, 200)"
            + " FROM pg_stat_activity a JOIN pg_stat_activity b ON b.pid = ANY (pg_blocking_pids(a.pid))"
            + " WHERE a.datname = current_database() AND (a.query LIKE '%rollup_report%' OR a.query LIKE '%take_generation%')"
            + " AND a.wait_event_type = 'Lock' AND a.wait_event <> 'extend' AND a.pid <> pg_backend_pid()"
            + " AND b.query NOT LIKE '%rollup_report%' AND b.query NOT LIKE '%take_generation%'"
            // nor for the take actor's take, which holds the claim row until its transaction ends, after a statement
            // of its own or in its COMMIT (seen once in an 80 s run)
            + " AND b.application_name <> '" + TAKE_ACTOR + "'"
            // the one wait allowed: a round recomputing a min or max reads its source, which a TRUNCATE holds ACCESS
            // EXCLUSIVE for the moment it runs (bounded by the round's lock_timeout, as any DDL on a table it reads)
            + " AND NOT (a.wait_event = 'relation' AND b.query LIKE 'TRUNCATE%')";

    /** Each truncate of a generation taken whole gives it a new file. */
    private static final String GENERATION_FILES = "SELECT pg_relation_filenode('countercache.delta_0')::text,"
            + " pg_relation_filenode('countercache.delta_1')::text";

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentHashMap<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Set<String> files = ConcurrentHashMap.newKeySet();   // of the generations, as the run saw them

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void everythingAtOnceEndsExactAndNoRollupEverWaits(Strategy strategy) throws Exception {
        TestDatabase db = TestPostgres.newDatabase(ChaosIT.class);
        BlogSchema.create(db, strategy, BlogSchema.EVERY);
        db.execute("INSERT INTO blog_user (id) SELECT g FROM generate_series(1, " + USERS + ") g;"
                + "INSERT INTO blog_article (id) SELECT g FROM generate_series(1, " + ARTICLES + ") g;"
                + "INSERT INTO player (id) SELECT g FROM generate_series(1, " + USERS + ") g;"
                + "INSERT INTO seat (player_id, league_id) SELECT p, l FROM generate_series(1, " + USERS + ") p,"
                + " generate_series(1, 2) l;"
                + "INSERT INTO tag (id) SELECT g FROM generate_series(1, 4) g;"
                + BlogSchema.tenantUsers(USERS)
                + "INSERT INTO shop VALUES (1, 's'), (2, 't');"
                + "INSERT INTO product (id, shop_id) SELECT g, 1 + g % 2 FROM generate_series(1, " + 2 * PRODUCTS + ") g;"
                + "INSERT INTO shelf SELECT g FROM generate_series(1, 4) g;"
                + "INSERT INTO shop_order (id) SELECT ('00000000-0000-0000-0000-00000000000' || g)::uuid"
                + " FROM generate_series(1, 3) g;");
        long seed = Long.getLong("chaos.seed", System.nanoTime());
        long seconds = Long.getLong("chaos.seconds", 8);
        System.out.println("ChaosIT " + strategy + " seed " + seed + " (-Dchaos.seed=" + seed + " replays it), "
                + seconds + " s");
        SplittableRandom seeds = new SplittableRandom(seed);

        List<RollupWorker> workers = new ArrayList<>();
        // workers that keep up claim the writers' generation by rows as they write; workers that sleep past the turn
        // of the clock leave a generation full, which one claiming alone takes whole (batches of 40 rarely hold a
        // generation's sums, batches of 5,000 do)
        boolean patient = seeds.nextBoolean();
        for (int i = 1; i <= 2; i++) {
            int lanes = 1 + seeds.nextInt(2);   // in lanes of their own, sharing every lane, or one of each
            System.out.println("ChaosIT worker " + i + ": " + lanes + " lane(s)" + (patient ? ", polls every 1.2 s" : ""));
            workers.add(RollupWorker.builder(db.dataSource()).batchSize(patient ? 5000 : 40).lanes(lanes)
                    .pollInterval(Duration.ofMillis(patient ? 1200 : 10)).name("chaos-rollup-" + i).build().start());
        }
        ExecutorService pool = Executors.newCachedThreadPool();
        List<Future<?>> actors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            actors.add(pool.submit(loop(db, seeds.split(), this::write, 0)));
        }
        actors.add(pool.submit(loop(db, seeds.split(), this::lockTarget, 50)));
        actors.add(pool.submit(loop(db, seeds.split(), this::lockParentThenUpdate, 100)));
        actors.add(pool.submit(loop(db, seeds.split(), this::recount, 700)));
        actors.add(pool.submit(loop(db, seeds.split(), this::deleteAndInsertTarget, 300)));
        actors.add(pool.submit(loop(db, seeds.split(), this::truncate, 2500)));
        actors.add(pool.submit(loop(db, seeds.split(), this::take, 400)));   // beside the workers' own takes
        Future<Long> watcher = pool.submit(() -> {
            long seen = 0;
            while (running.get()) {
                List<List<String>> waits = db.queryRows(switch (strategy) {
                    // a direct writer updates its article's row itself: a round locking that row for the counters
                    // the queue keeps there (a max, a distinct count) may follow its update chain to the writer's
                    // version and wait for it, the one wait SKIP LOCKED does not skip (bounded by lock_timeout)
                    case DIRECT -> ROLLUP_WAITS + " AND b.query NOT LIKE '% blog_comment %'";
                    // a slotted writer updates its slot row itself: a round flushing the slots meets the same wait
                    // on a slot row a writer updated and another writer holds (flush_slots leaves such a row for a
                    // later round once lock_timeout passes)
                    case SLOTTED -> ROLLUP_WAITS + " AND NOT EXISTS (SELECT FROM pg_locks l WHERE l.pid = a.pid"
                            + " AND l.locktype = 'tuple' AND l.relation = 'countercache.slot'::regclass)";
                    default -> ROLLUP_WAITS;
                });
                if (!waits.isEmpty() && seen == 0) {
                    System.out.println("ChaosIT: a rollup waits for " + waits);
                }
                seen += waits.size();
                counts.computeIfAbsent("watcher samples", k -> new AtomicLong()).incrementAndGet();
                files.addAll(db.queryRows(GENERATION_FILES).get(0));
                Thread.sleep(3);
            }
            return seen;
        });

        Thread.sleep(seconds * 1000);
        running.set(false);
        for (Future<?> f : actors) {
            f.get();
        }
        long rollupWaits = watcher.get();
        pool.shutdown();
        workers.forEach(RollupWorker::close);
        System.out.println("ChaosIT " + counts + ", generation files seen " + files.size());

        assertThat(rollupWaits).as("samples that caught a rollup waiting for an application's lock").isZero();
        if (strategy != Strategy.DIRECT) {   // a direct writer updates the target itself, and may deadlock with it
            assertThat(counts.getOrDefault("deadlock of a parent locker", new AtomicLong()).get())
                    .as("deadlocks of a session that locks a parent row and then updates its target").isZero();
        }
        for (String done : List.of("write", "recount", "deleteAndInsertTarget", "truncate", "lockParentThenUpdate")) {
            assertThat(counts.getOrDefault(done, new AtomicLong()).get()).as(done + " committed").isPositive();
        }
        if (strategy == Strategy.QUEUE) {   // the others queue into the generations seldom or never
            assertThat(files).as("generation files: a take truncated a generation").hasSizeGreaterThan(2);
        }
        if (strategy != Strategy.DIRECT) {   // a direct counter queues only hand-backs and corrections, maybe none
            assertThat(workers.stream().mapToLong(RollupWorker::appliedDeltas).sum())
                    .as("deltas the workers applied").isPositive();
        }
        BlogSchema.assertExactAfterRollup(db);
    }

    private interface Action {
        void run(Statement st, SplittableRandom random) throws SQLException, InterruptedException;
    }

    /** Runs an action again and again in transactions of its own until the load stops, pausing between. */
    private Runnable loop(TestDatabase db, SplittableRandom random, Action action, long pauseMillis) {
        return () -> {
            String name = action.getClass().getSimpleName();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                st.execute("SET lock_timeout = '2s'");
                c.commit();
                while (running.get()) {
                    try {
                        action.run(st, random);
                        if (random.nextInt(10) == 0) {
                            c.rollback();
                        } else {
                            c.commit();
                        }
                    } catch (SQLException e) {
                        c.rollback();
                        if (!EXPECTED.contains(e.getSQLState())) {
                            throw new IllegalStateException(name + ": " + e.getMessage(), e);
                        }
                        count("error " + e.getSQLState());
                    }
                    if (pauseMillis > 0) {
                        Thread.sleep(random.nextLong(pauseMillis / 2, pauseMillis * 3 / 2 + 1));
                    }
                }
            } catch (SQLException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    private void write(Statement st, SplittableRandom r) throws SQLException {
        int article = 1 + r.nextInt(ARTICLES), user = 1 + r.nextInt(USERS), product = 1 + r.nextInt(2 * PRODUCTS),
                moving = PRODUCTS + 1 + r.nextInt(PRODUCTS);
        String status = r.nextBoolean() ? "'public'" : "'private'";
        for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
            String order = "'00000000-0000-0000-0000-00000000000" + (1 + r.nextInt(3)) + "'";
            int shop = 1 + r.nextInt(2);
            int challenger = 1 + r.nextInt(USERS), opponent = 1 + r.nextInt(USERS);
            int tag = 1 + r.nextInt(4);
            String tenant = "'00000000-0000-4000-8000-00000000000" + (1 + r.nextInt(3)) + "'";
            st.execute(switch (r.nextInt(19)) {
                // times over three days, so that the counters per day and per hour fill several buckets
                case 0, 1 -> "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes, created_at) VALUES ("
                        + user + ", " + article + ", " + status + ", " + r.nextInt(5) + ", now() - interval '"
                        + r.nextInt(72 * 60) + " minutes')";
                case 2 -> "INSERT INTO blog_comment (creator_id, article_id, publish_status, likes, created_at) SELECT 1 + g % "
                        + USERS + ", " + article + ", " + status + ", g % 4, now() - g * interval '97 minutes'"
                        + " FROM generate_series(1, 30) g";
                case 3 -> "UPDATE blog_comment SET publish_status = " + status + ", likes = likes + 1"
                        + (r.nextBoolean() ? "" : ", created_at = created_at - interval '" + r.nextInt(1500) + " minutes'")
                        + " WHERE id IN (SELECT id FROM blog_comment WHERE article_id = " + article + " LIMIT 5)";
                case 4 -> "UPDATE blog_comment SET article_id = " + article + " WHERE id IN (SELECT id FROM blog_comment"
                        + " WHERE creator_id = " + user + " ORDER BY random() LIMIT 3)";
                case 5 -> "DELETE FROM blog_comment WHERE id IN (SELECT id FROM blog_comment WHERE article_id = "
                        + article + " ORDER BY id LIMIT 4)";
                case 6 -> "INSERT INTO review (product_id, stars, approved) VALUES (" + product + ", " + r.nextInt(6)
                        + ", " + r.nextBoolean() + ")";
                case 7 -> "UPDATE review SET approved = NOT approved, stars = stars + 1 WHERE id IN"
                        + " (SELECT id FROM review WHERE product_id = " + product + " LIMIT 2)";
                case 8 -> "INSERT INTO book (shelf_id) SELECT " + (1 + r.nextInt(6)) + " FROM generate_series(1, 3)";
                // a middle row of the path review -> product -> shop moves to another shop, with its reviews
                // (the new shop locked first, as the foreign key check would, but before the product: in the
                // order lockParentThenUpdate takes them, so that the two never deadlock)
                case 9 -> "SELECT FROM shop WHERE id = " + shop + " FOR KEY SHARE;"
                        + "UPDATE product SET shop_id = " + shop + " WHERE id = " + moving;
                // amounts from a few values, so that the distinct count of an order's amounts rises and falls
                case 10 -> "INSERT INTO shop_line (order_id, price, amount) SELECT " + order
                        + ", round((random() * 100)::numeric, 2), g % 3 FROM generate_series(1, " + (1 + r.nextInt(3)) + ") g";
                case 11 -> r.nextBoolean() ? "UPDATE shop_line SET price = price + 0.01, amount = (amount + 1) % 4, order_id = " + order
                        + " WHERE id IN (SELECT id FROM shop_line ORDER BY random() LIMIT 2)"
                        : "DELETE FROM shop_line WHERE id IN (SELECT id FROM shop_line ORDER BY random() LIMIT 2)";
                // games count for both players, NULL and the same player on both sides included
                // and for the challenger's seat in the game's league, when it has one
                case 12 -> "INSERT INTO game (challenger_id, opponent_id, score, league_id) VALUES (" + challenger + ", "
                        + (r.nextInt(8) == 0 ? "NULL" : r.nextInt(8) == 0 ? challenger : opponent) + ", "
                        + (r.nextInt(6) - 1) + ", " + (r.nextInt(5) == 0 ? "NULL" : 1 + r.nextInt(2)) + ")";
                case 13 -> r.nextBoolean()
                        ? "UPDATE game SET challenger_id = opponent_id, opponent_id = challenger_id, score = score + 1"
                        + " WHERE id IN (SELECT id FROM game ORDER BY random() LIMIT 3)"
                        : "UPDATE game SET opponent_id = " + opponent + ", league_id = 3 - league_id"
                        + " WHERE id IN (SELECT id FROM game WHERE challenger_id = " + challenger + " LIMIT 2)";
                case 14 -> r.nextBoolean()
                        ? "INSERT INTO game (challenger_id, opponent_id, score, league_id) SELECT 1 + g % " + USERS
                        + ", 1 + (g * 7) % " + USERS + ", g % 5, 1 + g % 2 FROM generate_series(1, 12) g"
                        : "DELETE FROM game WHERE id IN (SELECT id FROM game ORDER BY random() LIMIT 3)";
                // friendlies count beside games, as a TABLE_PER_CLASS sibling's rows do
                case 15 -> switch (r.nextInt(4)) {
                    case 0 -> "INSERT INTO friendly (challenger_id, opponent_id, score) VALUES (" + challenger + ", "
                            + (r.nextInt(6) == 0 ? "NULL" : opponent) + ", " + (r.nextInt(6) - 1) + ")";
                    case 1 -> "INSERT INTO friendly (challenger_id, opponent_id, score) SELECT 1 + g % " + USERS
                            + ", 1 + (g * 5) % " + USERS + ", g % 4 - 1 FROM generate_series(1, 8) g";
                    case 2 -> "UPDATE friendly SET challenger_id = opponent_id, opponent_id = " + challenger
                            + ", score = score + 1 WHERE id IN (SELECT id FROM friendly ORDER BY random() LIMIT 2)"
                            + " AND opponent_id IS NOT NULL";
                    default -> "DELETE FROM friendly WHERE id IN (SELECT id FROM friendly ORDER BY random() LIMIT 3)";
                };
                // posts of tenant users keyed by (uuid, bigint), which the library hashes: a post moves between users
                // and tenants, is hidden and shown, comes in bulk and goes
                case 18 -> switch (r.nextInt(4)) {
                    case 0 -> "INSERT INTO tenant_post (tenant, user_id, hidden) VALUES (" + tenant + ", " + user + ", "
                            + (r.nextInt(4) == 0) + ")";
                    case 1 -> "INSERT INTO tenant_post (tenant, user_id, hidden) SELECT " + tenant + ", 1 + g % " + USERS
                            + ", g % 5 = 0 FROM generate_series(1, 10) g";
                    case 2 -> "UPDATE tenant_post SET " + (r.nextBoolean() ? "user_id = " + user
                            : r.nextBoolean() ? "tenant = " + tenant : "hidden = NOT hidden")
                            + " WHERE id IN (SELECT id FROM tenant_post ORDER BY random() LIMIT 3)";
                    default -> "DELETE FROM tenant_post WHERE id IN (SELECT id FROM tenant_post ORDER BY random() LIMIT 2)";
                };
                // published articles per tag: articles published and unpublished, links added, removed, re-tagged,
                // moved to another article, and re-tagged in bulk
                case 16 -> "UPDATE blog_article SET published = NOT published WHERE id = " + article;
                case 17 -> switch (r.nextInt(5)) {
                    case 0, 1 -> "INSERT INTO article_tag VALUES (" + article + ", " + tag + ") ON CONFLICT DO NOTHING";
                    case 2 -> "DELETE FROM article_tag WHERE article_id = " + article + " AND tag_id = " + tag;
                    case 3 -> "UPDATE article_tag SET tag_id = " + tag + " WHERE article_id = " + article
                            + " AND tag_id = " + (1 + tag % 4);
                    default -> r.nextBoolean()
                            ? "UPDATE article_tag SET article_id = " + article + " WHERE (article_id, tag_id) IN"
                            + " (SELECT article_id, tag_id FROM article_tag WHERE tag_id = " + tag + " LIMIT 1)"
                            : "UPDATE article_tag SET tag_id = 1 + tag_id % 4 WHERE tag_id = " + tag;
                };
                default -> "DELETE FROM book WHERE id IN (SELECT id FROM book ORDER BY random() LIMIT 2)";
            });
        }
        count("write");
    }

    private void lockTarget(Statement st, SplittableRandom r) throws SQLException {
        String table = switch (r.nextInt(4)) {
            case 0 -> "blog_article";
            case 1 -> "blog_user";
            case 2 -> "article_tag";   // a link, as a re-tag holds it: a round recomputing its article skips it
            default -> "shelf";
        };
        st.execute("SELECT 1 FROM " + table + " WHERE " + (table.equals("article_tag") ? "article_id" : "id") + " = "
                + (1 + r.nextInt(6)) + " FOR UPDATE;"
                + "SELECT pg_sleep(" + (100 + r.nextInt(300)) / 1000.0 + ")");
        count("lockTarget");
    }

    /** The application pattern that deadlocked with a rollup that re-checked the product's foreign key. */
    private void lockParentThenUpdate(Statement st, SplittableRandom r) throws SQLException {
        int shop = 1 + r.nextInt(2);
        try {
            st.execute("SELECT 1 FROM shop WHERE id = " + shop + " FOR UPDATE; SELECT pg_sleep(0.05);"
                    + "UPDATE product SET name = 'n' || random() WHERE shop_id = " + shop + " AND id <= " + PRODUCTS);
        } catch (SQLException e) {
            if ("40P01".equals(e.getSQLState())) {
                count("deadlock of a parent locker");
            }
            throw e;
        }
        count("lockParentThenUpdate");
    }

    private void recount(Statement st, SplittableRandom r) throws SQLException {
        CounterDefinition c = BlogSchema.EVERY.get(r.nextInt(BlogSchema.EVERY.size()));
        if (r.nextBoolean()) {
            st.execute("SELECT countercache.recount(" + c.id() + ")");
        } else {
            st.execute("SELECT countercache.request_recount(" + c.id() + ")");
            st.getConnection().commit();
            boolean done = false;
            while (!done && running.get()) {          // batches of 3 keys, each in its own transaction
                try (var rs = st.executeQuery("SELECT done FROM countercache.recount_step(" + c.id() + ", 3)")) {
                    rs.next();
                    done = rs.getBoolean(1);
                }
                st.getConnection().commit();
            }
        }
        count("recount");
    }

    private void deleteAndInsertTarget(Statement st, SplittableRandom r) throws SQLException {
        int id = 1 + r.nextInt(ARTICLES);
        String table = switch (r.nextInt(6)) {
            case 0 -> "blog_article";
            case 1 -> "shelf";
            case 2 -> "player";     // its games as challenger go (cascade), as opponent lose it (set null)
            case 3 -> "seat";       // keyed by two columns, with no foreign key: its games stay, their deltas orphaned
            case 4 -> "tenant_user";   // keyed by a uuid and a bigint: a key change takes its posts along (cascade)
            default -> "product";   // a target, and the middle row of a path: its reviews go with it (cascade)
        };
        if (table.equals("seat")) {
            int player = 1 + r.nextInt(USERS);
            int league = 1 + r.nextInt(2);
            String seat = " WHERE player_id = " + player + " AND league_id = ";
            if (r.nextBoolean()) {   // its key changes away and back: both hand back its counts
                st.execute("UPDATE seat SET league_id = " + (league + 10) + seat + league + ";"
                        + "UPDATE seat SET league_id = " + league + seat + (league + 10));
            } else {
                st.execute("DELETE FROM seat" + seat + league);
                if (r.nextBoolean()) {
                    st.getConnection().commit();
                }
                st.execute("INSERT INTO seat (player_id, league_id) VALUES (" + player + ", " + league + ")"
                        + " ON CONFLICT DO NOTHING");
            }
            count("deleteAndInsertTarget");
            return;
        }
        if (table.equals("tenant_user")) {
            String tenant = "'00000000-0000-4000-8000-00000000000" + (1 + r.nextInt(3)) + "'";
            String user = " WHERE tenant = " + tenant + " AND id = ";
            int number = 1 + r.nextInt(USERS);
            if (r.nextBoolean()) {   // its key changes away and back, its posts with it
                st.execute("UPDATE tenant_user SET id = " + (number + 100) + user + number + ";"
                        + "UPDATE tenant_user SET id = " + number + user + (number + 100));
            } else {                 // deleted with its posts, and back without them
                st.execute("DELETE FROM tenant_user" + user + number + ";"
                        + "INSERT INTO tenant_user (tenant, id) VALUES (" + tenant + ", " + number + ")"
                        + " ON CONFLICT DO NOTHING");
            }
            count("deleteAndInsertTarget");
            return;
        }
        if (table.equals("player")) {
            id = 1 + r.nextInt(USERS);
        }
        if (table.equals("product")) {   // its new shop first, as in the move above, so as not to deadlock on it
            id = PRODUCTS + 1 + r.nextInt(PRODUCTS);
            st.execute("SELECT FROM shop WHERE id = " + (1 + id % 2) + " FOR KEY SHARE");
        }
        st.execute("DELETE FROM " + table + " WHERE id = " + id);
        if (r.nextBoolean()) {
            st.getConnection().commit();                  // deleted for a while: deltas for it become orphans
        }
        st.execute("INSERT INTO " + table + (table.equals("product") ? " (id, shop_id) VALUES (" + id + ", " + (1 + id % 2)
                : " (id) VALUES (" + id) + ") ON CONFLICT DO NOTHING");
        count("deleteAndInsertTarget");
    }

    /**
     * A take of the generation writers have left, as a worker runs before each round. Every other time it first
     * queues a burst of its own, 60 comments on one article, and holds it uncommitted until the clock has turned: the
     * workers claim only what is committed, so the burst reaches the queue in a generation already left, dense enough
     * to fold however fast the writers write and the workers claim (a run whose takes found only the writers' sparse
     * generations once saw none truncated). It then tries the take until one truncates, for most of that second: a
     * round in flight holds the generations, and a take never waits for it.
     */
    private void take(Statement st, SplittableRandom r) throws SQLException, InterruptedException {
        st.execute("RESET application_name");   // a writer in the burst, watched as any other
        boolean burst = r.nextBoolean();
        if (burst) {
            int article = 1 + r.nextInt(ARTICLES);
            for (int i = 0; i < 60; i++) {
                st.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, "
                        + article + ", 'public', 1)");
            }
            Thread.sleep(1150 - System.currentTimeMillis() % 1000);   // into the next second, past the take's 0.1 s
            st.getConnection().commit();
        }
        st.execute("SET application_name = '" + TAKE_ACTOR + "'");   // until the take's transaction has ended
        for (int i = 0; i < (burst ? 30 : 1); i++) {
            if (i > 0) {
                st.getConnection().commit();
                Thread.sleep(20);
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM countercache.take_generation()")) {
                if (rs.next() && rs.getLong(1) > 0) {   // a counter's deltas folded: the generation is truncated
                    break;
                }
            }
        }
        generationFiles(st);   // this take's truncate, or a worker's take's before it
        count("take");
    }

    private void generationFiles(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery(GENERATION_FILES)) {
            rs.next();
            files.add(rs.getString(1));
            files.add(rs.getString(2));
        }
    }

    private void truncate(Statement st, SplittableRandom r) throws SQLException {
        // the source of a count without a foreign key, of a path, of a sum, a min and a distinct count, of counts
        // fed by two associations, and the join table of published articles per tag
        st.execute("TRUNCATE " + List.of("book", "review", "shop_line", "game", "article_tag", "friendly", "tenant_post")
                .get(r.nextInt(7)));
        count("truncate");
    }
}
