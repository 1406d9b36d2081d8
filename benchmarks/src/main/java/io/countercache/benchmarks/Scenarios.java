package io.countercache.benchmarks;

import io.countercache.RollupWorker;
import io.countercache.internal.Round;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.spi.Via;
import org.HdrHistogram.Histogram;

import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.countercache.benchmarks.Variant.BARE;
import static io.countercache.benchmarks.Variant.DEPESZ;
import static io.countercache.benchmarks.Variant.DIRECT;
import static io.countercache.benchmarks.Variant.DJANGO;
import static io.countercache.benchmarks.Variant.LIBRARY;
import static io.countercache.benchmarks.Variant.LIBRARY_DIRECT;
import static io.countercache.benchmarks.Variant.LIBRARY_FILLFACTOR;
import static io.countercache.benchmarks.Variant.LIBRARY_SLOTTED;
import static io.countercache.benchmarks.Variant.LIBRARY_UNLOGGED;
import static io.countercache.benchmarks.Variant.QUEUE_FLOOR;
import static io.countercache.benchmarks.Variant.ROW_FLOOR;
import static io.countercache.benchmarks.Variant.TRIGGER_ONLY;

/** The scenarios of the suite; each returns its measurements keyed by variant, in the order they were run. */
final class Scenarios {

    static final int USERS = 1000;
    static final int ARTICLES = 1000;

    private final Server server;
    private final boolean quick;

    Scenarios(Server server, boolean quick) {
        this.server = server;
        this.quick = quick;
    }

    private static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, format + "%n", args);
    }

    /** A measurement's length: a twentieth in a quick run, which only shows that every scenario still runs. */
    private double seconds(double full) {
        return quick ? Math.max(0.5, full / 20) : full;
    }

    /** A table's seeded rows: a tenth in a quick run, whose seeding of every variant's table took most of its time. */
    private int seeded(int full) {
        return quick ? full / 10 : full;
    }

    private double warmup() {
        return quick ? 0.25 : 3;
    }

    /**
     * 1. Sixteen clients insert comments on one article; each transaction holds for {@code holdMillis} before commit.
     * Three rounds of 5 s per variant, the variants taking turns, each on its own database: one run of 15 s each moved
     * a variant's rate by a third between runs with no other work, when the machine's slow spells fell on one
     * variant. A round warms up for 1 s; the rollup runs during its variant's rounds only.
     */
    Map<Variant, Clients.Result> hotRow(int holdMillis) throws Exception {
        List<Variant> variants = List.of(BARE, DIRECT, DEPESZ, DJANGO, LIBRARY, LIBRARY_FILLFACTOR, LIBRARY_UNLOGGED,
                LIBRARY_SLOTTED, LIBRARY_DIRECT);
        Map<Variant, Server.Db> dbs = new LinkedHashMap<>();
        Map<Variant, Clients.Result> results = new LinkedHashMap<>();
        try {
            for (Variant v : variants) {
                Server.Db db = server.newDatabase("hot_" + v.label());
                dbs.put(v, db);
                try (Connection c = db.connect()) {
                    v.setUp(c, USERS, ARTICLES);
                }
            }
            for (int round = 0; round < (quick ? 1 : 3); round++) {   // a quick run only shows that it runs
                for (Variant v : variants) {
                    try (var rollup = new Clients.RollupLoop(dbs.get(v), v)) {
                        Clients.Result r = Clients.run(dbs.get(v), 16, quick ? 0.1 : 1, seconds(5), Long.MAX_VALUE,
                                null, (c, random) -> {
                            c.setAutoCommit(false);
                            v.insertComment(c, 1, 1 + random.nextInt(USERS));
                            if (holdMillis > 0) {
                                Thread.sleep(holdMillis);
                            }
                            c.commit();
                        });
                        results.merge(v, r, Clients.Result::plus);
                        log("  hot row, %d ms held, round %d, %-7s %,10.0f tx/s  p50 %7.2f ms  p99 %8.2f ms",
                                holdMillis, round + 1, v.label(), r.perSecond(), r.p50Millis(), r.p99Millis());
                    }
                }
            }
        } finally {
            for (Server.Db db : dbs.values()) {
                db.close();
            }
        }
        return results;
    }

    /** 2. Each transaction comments on articles 1 and 2 in random order; how many deadlock per 10,000 transactions. */
    Map<Variant, Clients.Result> deadlocks() throws Exception {
        Map<Variant, Clients.Result> results = new LinkedHashMap<>();
        long transactions = quick ? 1_000 : 10_000;
        for (Variant v : List.of(DIRECT, DJANGO, LIBRARY, LIBRARY_SLOTTED, LIBRARY_DIRECT)) {
            try (Server.Db db = server.newDatabase("deadlock_" + v.label())) {
                try (Connection c = db.connect()) {
                    v.setUp(c, USERS, ARTICLES);
                }
                try (var rollup = new Clients.RollupLoop(db, v)) {
                    // deadlock_timeout cut from 1 s so that detecting them does not dominate the run
                    Clients.Result r = Clients.run(db, 8, 0, seconds(60), transactions,
                            "SET deadlock_timeout = '50ms'", (c, random) -> {
                        c.setAutoCommit(false);
                        boolean forward = random.nextBoolean();
                        long user = 1 + random.nextInt(USERS);
                        v.insertComment(c, forward ? 1 : 2, user);
                        Thread.sleep(1);
                        v.insertComment(c, forward ? 2 : 1, user);
                        c.commit();
                    });
                    results.put(v, r);
                    log("  deadlocks, %-7s %,d of %,d transactions", v.label(), r.deadlocks(), r.ops() + r.deadlocks());
                }
            }
        }
        return results;
    }

    /**
     * 3. Four clients, one write per transaction: insert, flip the status, reparent, delete. Each write three rounds of
     * 3 s per variant, the variants taking turns, each on its own database, as in scenario 1: its ratios to depesz
     * moved by a tenth between runs. A round warms up for 1 s; the rollup runs during its variant's rounds only.
     */
    Map<String, Map<Variant, Clients.Result>> singleRowWrites() throws Exception {
        Map<String, Map<Variant, Clients.Result>> results = new LinkedHashMap<>();
        int seeded = seeded(200_000);
        List<Variant> variants = List.of(BARE, DIRECT, DEPESZ, DJANGO, LIBRARY, LIBRARY_UNLOGGED, LIBRARY_SLOTTED,
                LIBRARY_DIRECT);
        Map<Variant, Server.Db> dbs = new LinkedHashMap<>();
        try {
            for (Variant v : variants) {
                Server.Db db = server.newDatabase("single_" + v.label());
                dbs.put(v, db);
                try (Connection c = db.connect()) {
                    v.setUp(c, USERS, ARTICLES);
                }
                db.execute("INSERT INTO blog_comment (creator_id, article_id, message, publish_status) SELECT 1 + g % "
                        + USERS + ", 1 + g % " + ARTICLES + ", 'seed', CASE WHEN g % 3 = 0 THEN 'private' ELSE 'public' END"
                        + " FROM generate_series(1, " + seeded + ") g");
                try (Connection c = db.connect()) {
                    emptyQueue(c, v);   // the seed's queue rows: the rollup loop would drain them while writers run
                }
                db.execute("VACUUM ANALYZE");
            }
            for (String op : List.of("insert", "flip", "reparent", "delete")) {
                for (int round = 0; round < (quick ? 1 : 3); round++) {   // a quick run only shows that it runs
                    for (Variant v : variants) {
                        Clients.Op write = switch (op) {
                            case "insert" -> (c, r) -> inTransactionIf(c, v == DIRECT,
                                    () -> v.insertComment(c, 1 + r.nextInt(ARTICLES), 1 + r.nextInt(USERS)));
                            case "flip" -> (c, r) -> inTransactionIf(c, v == DIRECT, () -> flip(c, v, 1 + r.nextInt(seeded)));
                            case "reparent" -> (c, r) -> inTransactionIf(c, v == DIRECT,
                                    () -> reparent(c, v, 1 + r.nextInt(seeded), 1 + r.nextInt(ARTICLES)));
                            default -> (c, r) -> inTransactionIf(c, v == DIRECT,
                                    () -> delete(c, v, deleteFrom("blog_comment"), 1 + r.nextInt(seeded)));
                        };
                        try (var rollup = new Clients.RollupLoop(dbs.get(v), v)) {
                            Clients.Result r = Clients.run(dbs.get(v), 4, quick ? 0.1 : 1, seconds(3), Long.MAX_VALUE,
                                    null, write);
                            results.computeIfAbsent(op, k -> new LinkedHashMap<>()).merge(v, r, Clients.Result::plus);
                            log("  single-row %-8s round %d, %-7s %,10.0f writes/s  p99 %7.2f ms", op, round + 1,
                                    v.label(), r.perSecond(), r.p99Millis());
                        }
                    }
                }
            }
        } finally {
            for (Server.Db db : dbs.values()) {
                db.close();
            }
        }
        return results;
    }

    private interface Body {
        void run() throws Exception;
    }

    /** DIRECT needs a transaction around the write and its counter updates; the others write in autocommit. */
    private static void inTransactionIf(Connection c, boolean transaction, Body body) throws Exception {
        c.setAutoCommit(!transaction);
        body.run();
        if (transaction) {
            c.commit();
        }
    }

    private static void flip(Connection c, Variant v, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE blog_comment SET publish_status = CASE publish_status"
                + " WHEN 'public' THEN 'private' ELSE 'public' END WHERE id = ? RETURNING article_id, creator_id, publish_status")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    v.clientSide(c, rs.getLong(1), rs.getLong(2), "public".equals(rs.getString(3)) ? 1 : -1);
                }
            }
        }
    }

    private static void reparent(Connection c, Variant v, long id, long article) throws SQLException {
        if (v == DIRECT) {   // the application must know the old parent to move the count, as Rails loads the record
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT article_id, creator_id, publish_status FROM blog_comment WHERE id = ? FOR UPDATE")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && "public".equals(rs.getString(3)) && rs.getLong(1) != article) {
                        try (PreparedStatement a = c.prepareStatement("UPDATE blog_article SET total_public_comments ="
                                + " total_public_comments + CASE WHEN id = ? THEN -1 ELSE 1 END WHERE id IN (?, ?)")) {
                            a.setLong(1, rs.getLong(1));
                            a.setLong(2, rs.getLong(1));
                            a.setLong(3, article);
                            a.executeUpdate();
                        }
                    }
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE blog_comment SET article_id = ? WHERE id = ?")) {
            ps.setLong(1, article);
            ps.setLong(2, id);
            ps.executeUpdate();
        }
    }

    /**
     * A DELETE of the first row at or after a random id, wrapping to the first row: a delete by a random id of the
     * seeded set found no row more and more often as the rows went, and the more so the faster the variant (an empty
     * DELETE fires no row trigger, while statement triggers still run).
     */
    private static String deleteFrom(String table) {
        return "DELETE FROM " + table + " WHERE id = coalesce((SELECT x.id FROM " + table + " x WHERE x.id >= ?"
                + " ORDER BY x.id LIMIT 1), (SELECT min(x.id) FROM " + table + " x))";
    }

    /** Runs delete (one row of blog_comment, its id bound once) and lets a client-side variant count it. */
    private static void delete(Connection c, Variant v, String delete, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(delete + " RETURNING article_id, creator_id, publish_status")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && "public".equals(rs.getString(3))) {
                    v.clientSide(c, rs.getLong(1), rs.getLong(2), -1);
                }
            }
        }
    }

    /**
     * 4. One INSERT ... SELECT of N rows, one UPDATE of all of them, one DELETE of all of them; seconds each, the
     * least of three cycles, the variants taking turns cycle by cycle: a single cycle took half as long again at
     * random (a checkpoint, the machine's other work), for bare in one run and a library strategy in the next.
     */
    Map<Variant, double[]> bulk() throws Exception {
        int rows = quick ? 20_000 : 200_000;
        List<Variant> variants = List.of(BARE, DEPESZ, DJANGO, LIBRARY, LIBRARY_UNLOGGED, LIBRARY_SLOTTED, LIBRARY_DIRECT);
        Map<Variant, Server.Db> dbs = new LinkedHashMap<>();
        Map<Variant, double[]> results = new LinkedHashMap<>();
        try {
            for (Variant v : variants) {
                Server.Db db = server.newDatabase("bulk_" + v.label());
                dbs.put(v, db);
                try (Connection c = db.connect(); Statement st = c.createStatement()) {
                    v.setUp(c, USERS, ARTICLES);
                    bulkCycle(st, rows / 10);       // warm-up: caches, plans, the trigger functions
                }
            }
            for (int cycle = 0; cycle < 3; cycle++) {
                for (Variant v : variants) {
                    try (Connection c = dbs.get(v).connect(); Statement st = c.createStatement()) {
                        emptyQueue(c, v);   // each cycle starts from an empty queue
                        st.execute("VACUUM ANALYZE");
                        double[] times = bulkCycle(st, rows);
                        results.merge(v, times, (a, b) -> new double[]{Math.min(a[0], b[0]), Math.min(a[1], b[1]),
                                Math.min(a[2], b[2])});
                    }
                }
            }
        } finally {
            for (Server.Db db : dbs.values()) {
                db.close();
            }
        }
        results.forEach((v, t) -> log("  bulk %,d rows, %-7s insert %6.2f s  update %6.2f s  delete %6.2f s", rows,
                v.label(), t[0], t[1], t[2]));
        return results;
    }

    private static double[] bulkCycle(Statement st, int rows) throws SQLException {
        return new double[]{
                timed(st, "INSERT INTO blog_comment (creator_id, article_id, message, publish_status)"
                        + " SELECT 1 + g % " + USERS + ", 1 + (g * 7) % " + ARTICLES + ", 'bulk',"
                        + " CASE WHEN g % 3 = 0 THEN 'private' ELSE 'public' END FROM generate_series(1, " + rows + ") g"),
                timed(st, "UPDATE blog_comment SET publish_status = CASE publish_status"
                        + " WHEN 'public' THEN 'private' ELSE 'public' END"),
                timed(st, "DELETE FROM blog_comment")};
    }

    private static double timed(Statement st, String sql) throws SQLException {
        long t0 = System.nanoTime();
        st.execute(sql);
        return (System.nanoTime() - t0) / 1e9;
    }

    int bulkRows() {
        return quick ? 20_000 : 200_000;
    }

    /** 5. Drain N queued deltas, {@code fold} per target, in batches of 10,000; deltas per second. */
    Map<Variant, Double> rollup(int fold) throws Exception {
        int deltas = rollupDeltas(), targets = deltas / fold;
        Map<Variant, Double> results = new LinkedHashMap<>();
        for (Variant v : List.of(DEPESZ, DJANGO, LIBRARY, LIBRARY_UNLOGGED)) {
            try (Server.Db db = server.newDatabase("rollup_" + v.label()); Connection c = db.connect()) {
                v.setUp(c, 10, targets);
                try (Statement st = c.createStatement()) {
                    String g = "1 + g % " + targets;
                    String queue = switch (v) {
                        case DEPESZ -> "counters_queue";
                        case DJANGO -> "counting_task";
                        case LIBRARY_UNLOGGED -> "countercache.delta_unlogged";
                        default -> "countercache.delta";
                    };
                    // warm-up: fill and drain a tenth as much, untimed; then the measured run
                    drain(st, v, queue, fill(v, into(db, v, queue), g, deltas / 10));
                    String into = into(db, v, queue);
                    st.execute(fill(v, into, g, deltas));
                    st.execute("VACUUM ANALYZE");
                    awaitLeft(db, into);
                    double rate = deltas / drain(st, v, queue, null);
                    long sum = db.queryLong(v == DEPESZ ? "SELECT sum(current_value) FROM counters"
                            : "SELECT sum(total_public_comments) FROM blog_article");
                    if (sum != deltas + deltas / 10) {
                        throw new IllegalStateException(v + " rollup applied " + sum + " of " + (deltas + deltas / 10) + " deltas");
                    }
                    results.put(v, rate);
                    log("  rollup %,d deltas over %,d targets, %-16s %,12.0f deltas/s", deltas, targets, v.label(), rate);
                }
            }
        }
        return results;
    }

    /**
     * 5b. The library's rollup with one worker (which claims alone), one beside rounds in flight (a session that
     * locks the claim row FOR SHARE in transactions of 50 ms, as rounds in lanes do, so that it claims with FOR UPDATE
     * SKIP LOCKED but for the rounds that start between two of them), two,
     * and two in lanes of their own, side by side in one database: {@code deltas} queued at {@code fold} per target
     * each time, drained in rounds of 10,000. Deltas per second, in that order.
     */
    double[] rollupWorkers(int fold) throws Exception {
        int deltas = rollupDeltas(), targets = deltas / fold;
        int[][] runs = {{1, 1, 0}, {1, 1, 1}, {2, 1, 0}, {2, 2, 0}};   // workers, lanes, a round in flight beside
        try (Server.Db db = server.newDatabase("rollup_workers"); Connection c = db.connect()) {
            LIBRARY.setUp(c, 10, targets);
            String queue = "countercache.delta", g = "1 + g % " + targets;
            double[] rates = new double[runs.length];
            try (Statement st = c.createStatement()) {
                drain(st, LIBRARY, queue, fill(LIBRARY, into(db, LIBRARY, queue), g, deltas / 10));   // warm-up, untimed
                for (int run = 0; run < runs.length; run++) {
                    int workers = runs[run][0];
                    String round = "SELECT count(*) FROM countercache.rollup_report(10000, false, " + runs[run][1] + ")";
                    // the workers' sessions open, and take and round once on the empty queue, before the fill: at
                    // 1,000 per target the drain takes about a quarter of a second, of which opening a session and
                    // compiling the rollup in it took a good part
                    List<Connection> sessions = new ArrayList<>();
                    try {
                        for (int w = 0; w < workers; w++) {
                            Connection wc = db.connect();
                            sessions.add(wc);
                            try (Statement ws = wc.createStatement()) {
                                ws.execute(Round.TAKE);
                                ws.execute(round);
                            }
                        }
                        String into = into(db, LIBRARY, queue);
                        st.execute(fill(LIBRARY, into, g, deltas));
                        st.execute("VACUUM ANALYZE");
                        awaitLeft(db, into);
                        // beside: a session that locks the claim row FOR SHARE in transactions of 50 ms, one after the
                        // other; one held for the whole drain held back vacuum's horizon, and measured that instead
                        java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean(true);
                        List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                        Thread beside = runs[run][2] == 0 ? null : new Thread(() -> {
                            try (Connection bc = db.connect(); Statement bs = bc.createStatement()) {
                                bc.setAutoCommit(false);
                                while (draining.get()) {
                                    bs.execute("SELECT FROM countercache.queue_claim FOR SHARE");
                                    bs.execute("SELECT pg_sleep(0.05)");
                                    bc.commit();
                                }
                            } catch (Exception e) {
                                failures.add(e);
                            }
                        });
                        if (beside != null) {
                            beside.start();
                        }
                        long t0 = System.nanoTime();
                        List<Thread> threads = new ArrayList<>();
                        for (Connection wc : sessions) {
                            Thread t = new Thread(() -> {
                                try (wc; Statement ws = wc.createStatement()) {
                                    do {
                                        ws.execute(Round.TAKE);
                                        ws.execute(round);
                                    } while (holdsRows(ws, queue));
                                } catch (Exception e) {
                                    failures.add(e);
                                }
                            });
                            t.start();
                            threads.add(t);
                        }
                        for (Thread t : threads) {
                            t.join();
                        }
                        rates[run] = deltas / ((System.nanoTime() - t0) / 1e9);
                        draining.set(false);
                        if (beside != null) {
                            beside.join();
                        }
                        if (!failures.isEmpty()) {
                            throw failures.get(0);
                        }
                        log("  rollup %,d deltas over %,d targets, %d worker(s), %d lane(s)%s %,12.0f deltas/s", deltas,
                                targets, workers, runs[run][1], beside != null ? ", beside a round" : "", rates[run]);
                    } finally {
                        for (Connection wc : sessions) {
                            wc.close();   // the threads closed theirs; on a failure before them, none did
                        }
                    }
                }
            }
            long sum = db.queryLong("SELECT sum(total_public_comments) FROM blog_article");
            if (sum != (long) runs.length * deltas + deltas / 10) {
                throw new IllegalStateException("the workers applied " + sum + " of " + ((long) runs.length * deltas + deltas / 10));
            }
            return rates;
        }
    }

    /**
     * Whether queue holds a delta still, read in the draining session: a new session per look cost about as much as
     * a round, and a variant that drains in more rounds (depesz's, where the library's deltas fold) paid it more often.
     */
    private static boolean holdsRows(Statement st, String queue) throws SQLException {
        // through the id index, as depesz's apply finds its first id: a scan of the heap would walk the dead rows
        // that rounds by rows leave at its front, which a take that truncates a generation never leaves
        try (ResultSet rs = st.executeQuery("SELECT min(id) IS NOT NULL FROM " + queue)) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static long rolledUp(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT countercache.rollup(100000)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String fill(Variant v, String queue, String g, int deltas) {
        return switch (v) {
            case DEPESZ -> "INSERT INTO counters_queue (counter_name, value_change) SELECT 'a' || (" + g
                    + "), 1 FROM generate_series(1, " + deltas + ") g";
            case DJANGO -> "INSERT INTO counting_task (table_name, row_id, name, value) SELECT 'blog_article', "
                    + g + ", 'total_public_comments', 1 FROM generate_series(1, " + deltas + ") g";
            default -> "INSERT INTO " + queue + " (counter_id, target_id, delta) SELECT "
                    + Variant.COUNTERS.get(0).id() + ", " + g + ", 1 FROM generate_series(1, " + deltas + ") g";
        };
    }

    /**
     * Where a fill goes: the library's writers put the deltas of queue counters in the generation of the queue that
     * the clock names (countercache.generation), so a fill does too; other variants fill their queue.
     */
    private static String into(Server.Db db, Variant v, String queue) throws SQLException {
        return v == LIBRARY ? "countercache.delta_" + db.queryLong("SELECT countercache.generation(clock_timestamp())")
                : queue;
    }

    /**
     * Waits, untimed, until writers have left the generation a fill went to (the clock names the other one, 0.1 s past
     * the turn at least), as they have left a backlog: a round then takes it whole (docs/architecture.md,
     * "Generations"). A generation writers are still in is claimed by rows.
     */
    private static void awaitLeft(Server.Db db, String into) throws SQLException, InterruptedException {
        if (!into.startsWith("countercache.delta_") || into.endsWith("unlogged")) {
            return;
        }
        long left = Long.parseLong(into.substring(into.length() - 1));
        while (db.queryLong("SELECT CASE WHEN countercache.generation(t) <> " + left
                + " AND date_part('epoch', t) - floor(date_part('epoch', t)) BETWEEN 0.1 AND 0.5 THEN 1 ELSE 0 END"
                + " FROM clock_timestamp() t") == 0) {
            Thread.sleep(20);
        }
    }

    /** Fills the queue (unless fill is null), then rolls up in batches of 10,000 until it is empty; seconds taken. */
    private static double drain(Statement st, Variant v, String queue, String fill) throws SQLException {
        if (fill != null) {
            st.execute(fill);
        }
        long t0 = System.nanoTime();
        do {
            if (v.isLibrary()) {
                st.execute(Round.TAKE);   // as a worker does, in a transaction of its own
            }
            st.execute(v.rollupSql(10_000));
        } while (holdsRows(st, queue));
        return (System.nanoTime() - t0) / 1e9;
    }

    int rollupDeltas() {
        return quick ? 50_000 : 1_000_000;
    }

    /** 6. Sustained writes with the default RollupWorker; how long a probe comment takes to show in its counter. */
    record Staleness(double writesPerSecond, Histogram lagMicros) {
    }

    Staleness staleness(int targetRate) throws Exception {
        try (Server.Db db = server.newDatabase("staleness")) {
            try (Connection c = db.connect()) {
                LIBRARY.setUp(c, USERS, ARTICLES);
            }
            Histogram lag = new Histogram(3_600_000_000L, 3);
            // the worker's sessions come from a pool of one, as an application's pool hands it a warm session: a new
            // session per cycle, with the rollup compiled again in it, was in the staleness measured
            try (Connection session = db.connect();
                 RollupWorker worker = RollupWorker.builder(pooled(session)).build().start()) {
                int clients = 8;
                double perClientInterval = clients * 1e9 / targetRate;
                double warmup = warmup();
                Thread probe = new Thread(() -> {
                    try {
                        Thread.sleep((long) (warmup * 1000));
                    } catch (InterruptedException e) {
                        return;
                    }
                    probe(db, lag);
                });
                probe.start();
                Clients.Result load = Clients.run(db, clients, warmup, seconds(20), Long.MAX_VALUE, null, new Clients.Op() {
                    final ThreadLocal<long[]> next = ThreadLocal.withInitial(() -> new long[]{System.nanoTime()});
                    @Override
                    public void run(Connection c, java.util.SplittableRandom r) throws Exception {
                        long[] at = next.get();
                        long wait = at[0] - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        }
                        at[0] += (long) perClientInterval;
                        c.setAutoCommit(true);
                        LIBRARY.insertComment(c, 2 + r.nextInt(ARTICLES - 1), 1 + r.nextInt(USERS));
                    }
                });
                probe.interrupt();
                probe.join();
                if (worker.failures() > 0) {   // a failed round would be in the staleness, unseen
                    throw new IllegalStateException("the worker failed " + worker.failures() + " rounds");
                }
                log("  staleness at %,.0f writes/s: p50 %.0f ms, p99 %.0f ms, max %.0f ms over %d probes",
                        load.perSecond(), lag.getValueAtPercentile(50) / 1000.0, lag.getValueAtPercentile(99) / 1000.0,
                        lag.getMaxValue() / 1000.0, lag.getTotalCount());
                return new Staleness(load.perSecond(), lag);
            }
        }
    }

    /** A pool of one session: the worker opens and releases it as it would a pooled one, and the session stays. */
    private static io.countercache.ConnectionSource pooled(Connection session) {
        return new io.countercache.ConnectionSource() {
            @Override
            public Connection open() {
                return session;
            }

            @Override
            public void release(Connection connection) {
                // kept open for the next cycle
            }
        };
    }

    /** Commits one comment on article 1, then polls its counter until it shows; records the time in between. */
    private static void probe(Server.Db db, Histogram lag) {
        try (Connection c = db.connect();
             PreparedStatement read = c.prepareStatement("SELECT total_public_comments FROM blog_article WHERE id = 1")) {
            c.setAutoCommit(true);
            long expected = 0;
            while (!Thread.currentThread().isInterrupted()) {
                LIBRARY.insertComment(c, 1, 1);
                long committed = System.nanoTime();
                expected++;
                while (true) {
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) >= expected) {
                            break;
                        }
                    }
                    Thread.sleep(2);
                }
                lag.recordValue(Math.max(1, (System.nanoTime() - committed) / 1000));
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            throw new IllegalStateException("staleness probe failed", e);
        }
    }

    /** 7. Table and queue sizes after N counter changes to 100 articles, direct vs library (after its rollup). */
    Map<Variant, long[]> bloat() throws Exception {
        int changes = quick ? 20_000 : 1_000_000;
        Map<Variant, long[]> results = new LinkedHashMap<>();
        for (Variant v : List.of(DIRECT, LIBRARY)) {
            try (Server.Db db = server.newDatabase("bloat_" + v.label())) {
                try (Connection c = db.connect()) {
                    v.setUp(c, 100, 100);
                }
                // each transaction makes two counter changes (article and user); durability off for speed only here
                Clients.run(db, 8, 0, 3600, changes / 2, null, (c, r) -> {
                    c.setAutoCommit(false);
                    try (Statement st = c.createStatement()) {
                        st.execute("SET LOCAL synchronous_commit = off");
                    }
                    v.insertComment(c, 1 + r.nextInt(100), 1 + r.nextInt(100));
                    c.commit();
                });
                // the queue and its two generations, where writers put the deltas of queue counters
                String queueTables = " FROM unnest('{countercache.delta, countercache.delta_0, countercache.delta_1}'"
                        + "::regclass[]) r";
                String heap = "SELECT sum(pg_relation_size(r))::bigint" + queueTables;
                String index = "SELECT sum(pg_indexes_size(r))::bigint" + queueTables;
                long[] queue = new long[4];
                if (v == LIBRARY) {
                    queue[0] = db.queryLong(heap);
                    queue[1] = db.queryLong(index);
                    RollupWorker.builder(db.dataSource()).build().drain();
                    db.execute("VACUUM countercache.delta");
                    queue[2] = db.queryLong(heap);
                    queue[3] = db.queryLong(index);
                }
                long targets = db.queryLong("SELECT pg_total_relation_size('blog_article') + pg_total_relation_size('blog_user')");
                results.put(v, new long[]{targets, queue[0], queue[1], queue[2], queue[3]});
                log("  bloat after %,d changes, %-7s targets %,d kB, queue heap+index %,d+%,d kB before rollup,"
                        + " %,d+%,d kB after drain and VACUUM", changes, v.label(), targets / 1024, queue[0] / 1024,
                        queue[1] / 1024, queue[2] / 1024, queue[3] / 1024);
            }
        }
        return results;
    }

    int bloatChanges() {
        return quick ? 20_000 : 1_000_000;
    }

    /** 9. What a recount costs writers: results of {@link #recount()}. */
    record Recount(long sourceRows, Clients.Result quiet, Clients.Result duringRecount, double recountSeconds,
                   int recounts, Clients.Result duringLockingRecount, double lockingRecountSeconds,
                   double batchedSeconds) {
    }

    int recountRows() {
        return quick ? 200_000 : 4_000_000;
    }

    /**
     * 9. Four clients insert single comments, first alone, then while the public-comments-per-article counter is
     * recounted again and again: by countercache.recount (no lock on the source), then by the recount a hand-written
     * counter does (LOCK TABLE ... IN SHARE MODE, then an absolute UPDATE; what this library did before). Then the
     * batched recount (CALL countercache.run_recounts) on its own, for its rate.
     */
    Recount recount() throws Exception {
        int rows = recountRows();
        double seconds = quick ? 3 : 20;
        try (Server.Db db = server.newDatabase("recount")) {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                LIBRARY.setUp(c, USERS, ARTICLES);
                log("  recount: filling %,d comments", rows);
                st.execute("INSERT INTO blog_comment (creator_id, article_id, message, publish_status)"
                        + " SELECT 1 + g % " + USERS + ", 1 + (g * 7) % " + ARTICLES + ", 'm',"
                        + " CASE WHEN g % 3 = 0 THEN 'public' ELSE 'private' END FROM generate_series(1, " + rows + ") g");
                drainLibrary(st);
                st.execute("VACUUM ANALYZE");
            }
            int counter = Variant.COUNTERS.get(0).id();
            Clients.Op insert = (c, random) -> LIBRARY.insertComment(c, 1 + random.nextInt(ARTICLES), 1 + random.nextInt(USERS));
            try (var rollup = new Clients.RollupLoop(db, LIBRARY)) {
                Clients.Result quiet = Clients.run(db, 4, warmup(), seconds, Long.MAX_VALUE, null, insert);
                trim(db, rows);
                double[] online = repeat(db, seconds, insert, "SELECT countercache.recount(" + counter + ")");
                Clients.Result during = lastRun;
                trim(db, rows);
                double[] locking = repeat(db, seconds, insert, "BEGIN; LOCK TABLE blog_comment IN SHARE MODE;"
                        + " UPDATE blog_article a SET total_public_comments = x.n FROM (SELECT a2.id, count(c.id) AS n"
                        + " FROM blog_article a2 LEFT JOIN blog_comment c ON c.article_id = a2.id"
                        + " AND c.publish_status = 'public' GROUP BY a2.id) x"
                        + " WHERE a.id = x.id AND a.total_public_comments IS DISTINCT FROM x.n; COMMIT");
                Clients.Result duringLocking = lastRun;
                trim(db, rows);
                long t0 = System.nanoTime();
                db.execute("SELECT countercache.request_recount(" + counter + ")");
                db.execute("CALL countercache.run_recounts(100)");   // alone: a procedure that commits needs its own statement
                double batched = (System.nanoTime() - t0) / 1e9;
                log("  recount of %,d rows: online %.2f s (writers p99 %.1f ms, max %.1f ms), locking %.2f s"
                        + " (p99 %.1f ms, max %.1f ms), batched %.2f s; quiet p99 %.1f ms, max %.1f ms", rows,
                        online[0], during.p99Millis(), during.latencyMicros().getMaxValue() / 1000.0, locking[0],
                        duringLocking.p99Millis(), duringLocking.latencyMicros().getMaxValue() / 1000.0, batched,
                        quiet.p99Millis(), quiet.latencyMicros().getMaxValue() / 1000.0);
                return new Recount(rows, quiet, during, online[0], (int) online[1], duringLocking, locking[0], batched);
            }
        }
    }

    private Clients.Result lastRun;

    /**
     * Takes the source of scenario 9 back to its {@code rows} seeded comments, rolled up and vacuumed, so that each
     * recount runs over the same rows: the writers of the phase before had added 3 to 9% more.
     */
    private static void trim(Server.Db db, int rows) throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM blog_comment WHERE id > " + rows);
            drainLibrary(st);
            st.execute("VACUUM ANALYZE blog_comment");
        }
    }

    /** Runs the writers for {@code seconds} while {@code maintenance} runs back to back; returns its mean time and count. */
    private double[] repeat(Server.Db db, double seconds, Clients.Op writers, String maintenance) throws Exception {
        var running = new java.util.concurrent.atomic.AtomicBoolean(true);
        var times = new java.util.concurrent.CopyOnWriteArrayList<Double>();
        Thread loop = new Thread(() -> {
            try (Connection c = db.connect(); Statement st = c.createStatement()) {
                Thread.sleep((long) (warmup() * 1000));
                while (running.get()) {
                    long t0 = System.nanoTime();
                    st.execute(maintenance);
                    times.add((System.nanoTime() - t0) / 1e9);
                }
            } catch (Exception e) {
                throw new IllegalStateException(maintenance, e);
            }
        }, "maintenance");
        loop.start();
        lastRun = Clients.run(db, 4, warmup(), seconds, Long.MAX_VALUE, null, writers);
        running.set(false);
        loop.join();
        return new double[]{times.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN), times.size()};
    }

    /** Rolls the library's queue up until queue_state() says it is empty, taking the generation before each round. */
    private static void drainLibrary(Statement st) throws SQLException {
        while (queued(st) > 0) {
            st.execute(Round.TAKE);
            st.execute("SELECT countercache.rollup(100000)");
        }
    }

    private static long queued(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT depth FROM countercache.queue_state()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** 10. A counter along a path: writes per second, and what moving an article with its comments costs. */
    record Path(String setup, Clients.Result inserts, Clients.Result hot, int moved, double moveMillis,
                double moveBackMillis, long drift) {
    }

    /** The blog level of scenario 10: blogs, and the article's link to its blog. */
    static final String PATH_TABLES = """
            CREATE TABLE blog (id bigint PRIMARY KEY, total_comments bigint NOT NULL DEFAULT 0);
            ALTER TABLE blog_article ADD COLUMN blog_id bigint REFERENCES blog (id);
            CREATE INDEX blog_article_blog_id ON blog_article (blog_id);
            """;

    /**
     * The counter a developer would write by hand for scenario 10 (as counter_culture's multi-level counters do):
     * row triggers that update the blog in the writer's transaction, and one that moves an article's count when it
     * changes blog. Not exact under concurrency (nothing orders a comment writer and a move), and a hot row per blog.
     */
    static final String HAND_PATH_SQL = """
            CREATE FUNCTION hand_comment() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    UPDATE blog SET total_comments = total_comments - 1
                     WHERE id = (SELECT a.blog_id FROM blog_article a WHERE a.id = OLD.article_id);
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    UPDATE blog SET total_comments = total_comments + 1
                     WHERE id = (SELECT a.blog_id FROM blog_article a WHERE a.id = NEW.article_id);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_comment AFTER INSERT OR DELETE OR UPDATE OF article_id ON blog_comment
                FOR EACH ROW EXECUTE FUNCTION hand_comment();
            CREATE FUNCTION hand_article() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                n bigint;
            BEGIN
                SELECT count(*) INTO n FROM blog_comment c WHERE c.article_id = NEW.id;
                UPDATE blog SET total_comments = total_comments - n WHERE id = OLD.blog_id;
                UPDATE blog SET total_comments = total_comments + n WHERE id = NEW.blog_id;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_article AFTER UPDATE OF blog_id ON blog_article
                FOR EACH ROW WHEN (OLD.blog_id IS DISTINCT FROM NEW.blog_id) EXECUTE FUNCTION hand_article();
            """;

    static final CounterDefinition BLOG_COMMENTS = new CounterDefinition("Blog.totalComments",
            new TableName("public", "blog"), "id", KeyType.BIGINT, "total_comments", "bigint", Variant.COMMENT,
            "article_id", null, null, io.countercache.Strategy.QUEUE, 0,
            new Via(new TableName("public", "blog_article"), "id", KeyType.BIGINT, "blog_id"));

    /**
     * The same counter counted level by level, as the Hibernate integration declares {@code via = "article.blog"}: each
     * article counts its comments in a column of the library's, and each blog sums that column of its articles.
     */
    static final List<CounterDefinition> BLOG_COMMENTS_BY_LEVELS = List.of(
            new CounterDefinition("Blog.totalComments (per Article)", new TableName("public", "blog_article"), "id",
                    KeyType.BIGINT, "countercache_blog__total_comments", "bigint", Variant.COMMENT, "article_id", null,
                    null),
            new CounterDefinition("Blog.totalComments", new TableName("public", "blog"), "id", KeyType.BIGINT,
                    "total_comments", "bigint", new TableName("public", "blog_article"), "blog_id", null,
                    "countercache_blog__total_comments"));

    /**
     * 10. Blogs over the articles: 4 clients insert comments (autocommit), with no counter, with the hand-written row
     * triggers, with the library's path counter that locks the article (rolled up every 100 ms) and with the same
     * counted level by level; then article 1, with {@code moved} comments, moves to another blog and back, each one
     * UPDATE in autocommit.
     */
    List<Path> paths() throws Exception {
        int moved = quick ? 2_000 : 10_000;
        List<Path> results = new ArrayList<>();
        for (String setup : List.of("bare", "hand-written", "library, locking", "library, by levels")) {
            try (Server.Db db = server.newDatabase("path_" + setup.replaceAll("[^a-z]+", "_"));
                 Connection c = db.connect();
                 Statement st = c.createStatement()) {
                BARE.setUp(c, USERS, ARTICLES);
                st.execute(PATH_TABLES);
                st.execute("INSERT INTO blog (id) SELECT g FROM generate_series(1, 10) g;"
                        + "UPDATE blog_article SET blog_id = 1 + id % 10");
                if (setup.equals("hand-written")) {
                    st.execute(HAND_PATH_SQL);
                }
                if (setup.startsWith("library")) {
                    Installation.apply(c, Installation.units(setup.endsWith("locking") ? List.of(BLOG_COMMENTS)
                            : BLOG_COMMENTS_BY_LEVELS));
                }
                st.execute("INSERT INTO blog_comment (creator_id, article_id, message, publish_status) SELECT 1 + g % "
                        + USERS + ", CASE WHEN g <= " + moved + " THEN 1 ELSE 2 + g % " + (ARTICLES - 1) + " END, 'seed',"
                        + " 'public' FROM generate_series(1, " + (moved + seeded(100_000)) + ") g");
                if (setup.startsWith("library")) {
                    emptyQueue(c, LIBRARY);   // the seed's deltas, which the rollup loop would apply while writers run
                }
                st.execute("VACUUM ANALYZE");
                Clients.Result inserts, hot;
                try (var rollup = setup.startsWith("library") ? new Clients.RollupLoop(db, LIBRARY) : null) {
                    inserts = Clients.run(db, 4, warmup(), seconds(8), Long.MAX_VALUE, null,
                            (cc, r) -> comment(cc, 1 + r.nextInt(USERS), 2 + r.nextInt(ARTICLES - 1)));
                    // every article of blog 1 (ids 10, 20, ...): one hot row for a counter kept in the writer's transaction
                    hot = Clients.run(db, 16, warmup(), seconds(8), Long.MAX_VALUE, null,
                            (cc, r) -> comment(cc, 1 + r.nextInt(USERS), 10L * (1 + r.nextInt(ARTICLES / 10))));
                }
                double[] there = new double[5], back = new double[5];   // the median of five round trips
                for (int i = 0; i < 5; i++) {
                    there[i] = timed(st, "UPDATE blog_article SET blog_id = 2 WHERE id = 1") * 1000;
                    back[i] = timed(st, "UPDATE blog_article SET blog_id = 1 WHERE id = 1") * 1000;
                }
                java.util.Arrays.sort(there);
                java.util.Arrays.sort(back);
                if (setup.startsWith("library")) {
                    drainLibrary(st);
                }
                long drift = setup.equals("bare") ? 0 : db.queryLong("SELECT count(*) FROM blog b WHERE b.total_comments"
                        + " <> (SELECT count(*) FROM blog_comment c JOIN blog_article a ON a.id = c.article_id"
                        + " WHERE a.blog_id = b.id)");
                results.add(new Path(setup, inserts, hot, moved, there[2], back[2], drift));
                log("  path %-12s %,10.0f inserts/s, one blog %,10.0f  move %,d comments %8.2f ms, back %8.2f ms,"
                        + " blogs off %d", setup, inserts.perSecond(), hot.perSecond(), moved, there[2], back[2], drift);
            }
        }
        return results;
    }

    record AggregateWrites(String setup, Clients.Result inserts, Clients.Result deletes, long drift) {
    }

    /** Scenarios 12 to 14: writes with an aggregate kept three ways, and the rollup's rate for it beside a count's. */
    record Aggregates(Aggregate kind, List<AggregateWrites> writes, int deltas, Map<Integer, double[]> rollup) {
    }

    /**
     * An aggregate as the scenario keeps it: the columns it adds to the blog; the row trigger a developer would write
     * by hand, and the statement that starts its column from the source; the library's counter; the query that counts
     * the articles whose column differs from the source; and the queue rows of {@code deltas} changes to
     * {@code deltas / fold} articles, each article's spread through the queue ({@code %1$d} deltas, {@code %2$d}
     * articles), or null to leave the rollup out. For the report: its heading, what it keeps and how the hand-written
     * trigger keeps it, and what its rollup does. The rows the writers add and take away. The counters the library
     * keeps beneath the field's (the per-link count of a where on the far side), installed with it.
     */
    record Aggregate(String name, String tables, String hand, String handStart, CounterDefinition counter,
                     String drift, String queued, String heading, String described, String rollupNote, Rows rows,
                     List<CounterDefinition> beneath) {

        Aggregate(String name, String tables, String hand, String handStart, CounterDefinition counter, String drift,
                  String queued, String heading, String described, String rollupNote, Rows rows) {
            this(name, tables, hand, handStart, counter, drift, queued, heading, described, rollupNote, rows, List.of());
        }

        /** Every counter the library keeps for it. */
        List<CounterDefinition> counters() {
            List<CounterDefinition> all = new ArrayList<>(beneath);
            all.add(counter);
            return all;
        }
    }

    /**
     * The rows of an aggregate's source: its table, a seed of 100,000 of them, and the statement that inserts one from
     * three numbers (a user, an article, a number below 100,000); a writer deletes one by its id.
     */
    record Rows(String table, String seed, String insert) {
    }

    static final Rows COMMENTS = new Rows("blog_comment", "INSERT INTO blog_comment (creator_id, article_id, message,"
            + " publish_status, likes) SELECT 1 + g % " + USERS + ", 1 + g % " + ARTICLES + ", 'seed', 'public',"
            + " (g * 7919) % 100000 FROM generate_series(1, 100000) g", "INSERT INTO blog_comment (creator_id, article_id,"
            + " message, publish_status, likes) VALUES (?, ?, 'hello', 'public', ?)");

    /** Queue rows of a count or a min or max (see {@link Aggregate#queued}). */
    static final String QUEUED_COUNT = "INSERT INTO countercache.delta (counter_id, target_id, delta)"
            + " SELECT %3$d, 1 + g %% %2$d, 1 FROM generate_series(1, %1$d) g";

    /** Scenario 12: the most likes of an article's comments (an index on (article_id, likes) serves the max). */
    static final Aggregate MAX = new Aggregate("max", """
            ALTER TABLE blog_comment ADD COLUMN likes int NOT NULL DEFAULT 0;
            CREATE INDEX blog_comment_article_likes ON blog_comment (article_id, likes);
            ALTER TABLE blog_article ADD COLUMN most_likes int;
            """,
            // the max a developer would keep by hand: raised when a new row beats it, recomputed (by the same index)
            // when the row that held it goes or changes; in the writer's transaction, on the article's row, and not
            // exact under concurrency (two writers each miss the other's uncommitted row)
            """
            CREATE FUNCTION hand_max() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    UPDATE blog_article a SET most_likes = (SELECT max(c.likes) FROM blog_comment c WHERE c.article_id = a.id)
                     WHERE a.id = OLD.article_id AND a.most_likes = OLD.likes;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    UPDATE blog_article SET most_likes = NEW.likes
                     WHERE id = NEW.article_id AND (most_likes IS NULL OR most_likes < NEW.likes);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_max AFTER INSERT OR DELETE OR UPDATE OF article_id, likes ON blog_comment
                FOR EACH ROW EXECUTE FUNCTION hand_max();
            """,
            "UPDATE blog_article a SET most_likes = (SELECT max(likes) FROM blog_comment c WHERE c.article_id = a.id)",
            new CounterDefinition("Article.mostLikes", new TableName("public", "blog_article"), "id", KeyType.BIGINT,
                    "most_likes", "integer", Variant.COMMENT, "article_id", null, null, io.countercache.Strategy.QUEUE, 0,
                    null, new CounterDefinition.Extreme("max", "likes")),
            "SELECT count(*) FROM blog_article a WHERE a.most_likes IS DISTINCT FROM"
                    + " (SELECT max(likes) FROM blog_comment c WHERE c.article_id = a.id)",
            QUEUED_COUNT, "12. Min and max", "Articles keep the most likes of their comments (`max = \"likes\"`, an"
                    + " index on (article_id, likes)). *hand-written*: a row trigger that raises the article's max when a"
                    + " new row beats it and recomputes it when the row that held it goes, in the writer's transaction"
                    + " (not exact under concurrency).",
            "A max recomputes each touched article by the index.", COMMENTS);

    /** Scenario 13: the number of different users who commented on an article. */
    static final Aggregate DISTINCT = new Aggregate("distinct", """
            ALTER TABLE blog_comment ADD COLUMN likes int NOT NULL DEFAULT 0;
            ALTER TABLE blog_article ADD COLUMN commenters bigint NOT NULL DEFAULT 0;
            """,
            // the distinct count a developer would keep by hand: a count per article and user, and the article's
            // column moved when one reaches or leaves 0; exact (the count's row lock orders its writers), in the
            // writer's transaction
            """
            CREATE TABLE hand_commenter (article_id bigint, creator_id bigint, n bigint NOT NULL,
                                         PRIMARY KEY (article_id, creator_id));
            CREATE FUNCTION hand_distinct() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                left_ bigint;
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.creator_id IS NOT NULL THEN
                    UPDATE hand_commenter h SET n = h.n - 1
                     WHERE h.article_id = OLD.article_id AND h.creator_id = OLD.creator_id RETURNING h.n INTO left_;
                    IF left_ = 0 THEN
                        DELETE FROM hand_commenter h WHERE h.article_id = OLD.article_id AND h.creator_id = OLD.creator_id;
                        UPDATE blog_article SET commenters = commenters - 1 WHERE id = OLD.article_id;
                    END IF;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.creator_id IS NOT NULL THEN
                    INSERT INTO hand_commenter AS h VALUES (NEW.article_id, NEW.creator_id, 1)
                    ON CONFLICT (article_id, creator_id) DO UPDATE SET n = h.n + 1 RETURNING h.n INTO left_;
                    IF left_ = 1 THEN
                        UPDATE blog_article SET commenters = commenters + 1 WHERE id = NEW.article_id;
                    END IF;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_distinct AFTER INSERT OR DELETE OR UPDATE OF article_id, creator_id ON blog_comment
                FOR EACH ROW EXECUTE FUNCTION hand_distinct();
            """,
            "INSERT INTO hand_commenter SELECT article_id, creator_id, count(*) FROM blog_comment"
                    + " WHERE creator_id IS NOT NULL GROUP BY 1, 2;"
                    + "UPDATE blog_article a SET commenters = (SELECT count(DISTINCT creator_id) FROM blog_comment c"
                    + " WHERE c.article_id = a.id)",
            new CounterDefinition("Article.commenters", new TableName("public", "blog_article"), "id", KeyType.BIGINT,
                    "commenters", "bigint", Variant.COMMENT, "article_id", null, null, io.countercache.Strategy.QUEUE, 0,
                    null, null, "creator_id"),
            "SELECT count(*) FROM blog_article a WHERE a.commenters <>"
                    + " (SELECT count(DISTINCT creator_id) FROM blog_comment c WHERE c.article_id = a.id)",
            // each article's deltas are its values, 50 users each: a new value for every delta up to 50 per article
            "INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)"
                    + " SELECT %3$d, 1 + g %% %2$d, (g / %2$d %% 50)::text, 1 FROM generate_series(1, %1$d) g",
            "13. Distinct values", "Articles keep the number of different users who commented (`distinct ="
                    + " \"creator\"`). *hand-written*: a row trigger that keeps a count per article and user and moves the"
                    + " article's column when one reaches or leaves 0, in the writer's transaction (exact: the count's"
                    + " row lock orders its writers).",
            "A distinct counter's deltas are values (up to 50 per article), folded into a count per article and value"
                    + " before the column moves.", COMMENTS);

    /** Scenario 14: an article's comments per day, in rows of a bucket table. */
    static final Aggregate BUCKET = new Aggregate("bucket", """
            ALTER TABLE blog_comment ADD COLUMN likes int NOT NULL DEFAULT 0;
            ALTER TABLE blog_comment ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();
            CREATE TABLE article_day (article_id bigint REFERENCES blog_article (id), day date,
                                      comments bigint NOT NULL DEFAULT 0, PRIMARY KEY (article_id, day));
            """,
            // the count per day a developer would keep by hand: an upsert of the day's row, in the writer's
            // transaction; exact (the row lock orders its writers), and the day's row is a hot row of its article
            """
            CREATE FUNCTION hand_day() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    UPDATE article_day SET comments = comments - 1
                     WHERE article_id = OLD.article_id AND day = (OLD.created_at AT TIME ZONE 'UTC')::date;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    INSERT INTO article_day AS d VALUES (NEW.article_id, (NEW.created_at AT TIME ZONE 'UTC')::date, 1)
                    ON CONFLICT (article_id, day) DO UPDATE SET comments = d.comments + 1;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_day AFTER INSERT OR DELETE OR UPDATE OF article_id, created_at ON blog_comment
                FOR EACH ROW EXECUTE FUNCTION hand_day();
            """,
            "INSERT INTO article_day SELECT article_id, (created_at AT TIME ZONE 'UTC')::date, count(*) FROM blog_comment"
                    + " GROUP BY 1, 2",
            new CounterDefinition("ArticleDay.comments", new TableName("public", "blog_article"), "id", KeyType.BIGINT,
                    "comments", "bigint", Variant.COMMENT, "article_id", null, null)
                    .withBucket(new TableName("public", "article_day"),
                            new CounterDefinition.Bucket("created_at", "1 day", "UTC", "article_id", "day")),
            "SELECT count(*) FROM (SELECT article_id, (created_at AT TIME ZONE 'UTC')::date AS day, count(*) AS n"
                    + " FROM blog_comment GROUP BY 1, 2) x FULL JOIN article_day d USING (article_id, day)"
                    + " WHERE coalesce(d.comments, 0) <> coalesce(x.n, 0)",
            "INSERT INTO countercache.delta (counter_id, target_uuid, delta)"
                    + " SELECT %3$d, countercache.bucket_key(1 + g %% %2$d, current_date), 1 FROM generate_series(1, %1$d) g",
            "14. Counters per day", "Articles keep their comments per day in a bucket table (`bucket = \"createdAt\","
                    + " period = \"1 day\"`), keyed by (article, day); every write is today's. *hand-written*: a row"
                    + " trigger that upserts the day's row (`INSERT ... ON CONFLICT DO UPDATE`) and takes one off the"
                    + " old day's row, in the writer's transaction (exact: the row lock orders its writers; the day's"
                    + " row is a hot row of its article).",
            "A bucket's deltas fold and update its row like a count's (the rows exist: the seed made them).", COMMENTS);

    /** The 1,000 tags of scenarios 15 and 16 (their table made first) and the join table of their articles. */
    private static final String LINK_TABLE = """
            INSERT INTO tag (id, name) SELECT g, 't' || g FROM generate_series(1, 1000) g;
            CREATE TABLE article_tag (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                                      article_id bigint NOT NULL REFERENCES blog_article (id),
                                      tag_id bigint NOT NULL REFERENCES tag (id));
            CREATE INDEX article_tag_tag ON article_tag (tag_id);
            """;

    /**
     * Scenario 15: the articles of a tag, through the join table of a many-to-many ({@code @CounterCache(source =
     * Article.class, via = "tags")} on {@code Tag}), which counts the join table's rows per tag.
     */
    static final Aggregate LINKS = new Aggregate("many-to-many", """
            CREATE TABLE tag (id bigint PRIMARY KEY, name text, article_count bigint NOT NULL DEFAULT 0);
            """ + LINK_TABLE,
            """
            CREATE FUNCTION hand_tag() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') THEN
                    UPDATE tag SET article_count = article_count - 1 WHERE id = OLD.tag_id;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    UPDATE tag SET article_count = article_count + 1 WHERE id = NEW.tag_id;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_tag AFTER INSERT OR DELETE OR UPDATE OF tag_id ON article_tag
                FOR EACH ROW EXECUTE FUNCTION hand_tag();
            """,
            "UPDATE tag t SET article_count = (SELECT count(*) FROM article_tag x WHERE x.tag_id = t.id)",
            new CounterDefinition("Tag.articleCount", new TableName("public", "tag"), "id", KeyType.BIGINT,
                    "article_count", "bigint", new TableName("public", "article_tag"), "tag_id", null, null),
            "SELECT count(*) FROM tag t WHERE t.article_count <> (SELECT count(*) FROM article_tag x WHERE x.tag_id = t.id)",
            null, "15. Many-to-many", "Tags keep the number of their articles, through the join table of a"
                    + " many-to-many (`@CounterCache(source = Article.class, via = \"tags\")` on `Tag`: a count of the"
                    + " join table's rows per tag, 1,000 tags). *hand-written*: a row trigger that adds one to the tag of"
                    + " a new link and takes one from the tag of a deleted one, in the writer's transaction.", "",
            new Rows("article_tag", "INSERT INTO article_tag (article_id, tag_id) SELECT 1 + g % " + ARTICLES
                    + ", 1 + (g * 7919) % 1000 FROM generate_series(1, 100000) g", "INSERT INTO article_tag (article_id,"
                    + " tag_id) SELECT v.a, 1 + (v.u + v.n) % 1000 FROM (VALUES (?::bigint, ?::bigint, ?::bigint)) v(u, a, n)"));

    /**
     * Scenario 16: the published articles of a tag, a where on the far side of a many-to-many ({@code
     * @CounterCache(source = Article.class, via = "tags", where = "published")} on {@code Tag}): per link, the rollup
     * keeps whether its article is published in a column of the join table, and the tag sums it.
     */
    static final Aggregate FAR_WHERE = new Aggregate("far-side-where", """
            ALTER TABLE blog_article ADD COLUMN published boolean NOT NULL DEFAULT false;
            UPDATE blog_article SET published = id % 2 = 0;
            CREATE TABLE tag (id bigint PRIMARY KEY, name text, published_articles bigint NOT NULL DEFAULT 0);
            """ + LINK_TABLE + "CREATE INDEX article_tag_article ON article_tag (article_id);\n",
            // what a developer would write by hand: the link's trigger reads its article in the writer's transaction
            // (not exact under concurrency: a link inserted while its article is published is counted by neither),
            // and the article's trigger moves the count of each of its tags
            """
            CREATE FUNCTION hand_link() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP IN ('UPDATE', 'DELETE') AND (SELECT a.published FROM blog_article a WHERE a.id = OLD.article_id) THEN
                    UPDATE tag SET published_articles = published_articles - 1 WHERE id = OLD.tag_id;
                END IF;
                IF TG_OP IN ('INSERT', 'UPDATE') AND (SELECT a.published FROM blog_article a WHERE a.id = NEW.article_id) THEN
                    UPDATE tag SET published_articles = published_articles + 1 WHERE id = NEW.tag_id;
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_link AFTER INSERT OR DELETE OR UPDATE OF article_id, tag_id ON article_tag
                FOR EACH ROW EXECUTE FUNCTION hand_link();
            CREATE FUNCTION hand_publish() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE tag t SET published_articles = t.published_articles + CASE WHEN NEW.published THEN x.n ELSE -x.n END
                  FROM (SELECT l.tag_id, count(*) AS n FROM article_tag l WHERE l.article_id = NEW.id GROUP BY 1) x
                 WHERE t.id = x.tag_id;
                RETURN NULL;
            END $$;
            CREATE TRIGGER hand_publish AFTER UPDATE OF published ON blog_article
                FOR EACH ROW WHEN (OLD.published IS DISTINCT FROM NEW.published) EXECUTE FUNCTION hand_publish();
            """,
            "UPDATE tag t SET published_articles = (SELECT count(*) FROM article_tag x JOIN blog_article a"
                    + " ON a.id = x.article_id WHERE x.tag_id = t.id AND a.published)",
            new CounterDefinition("Tag.publishedArticles", new TableName("public", "tag"), "id", KeyType.BIGINT,
                    "published_articles", "bigint", new TableName("public", "article_tag"), "tag_id", null,
                    "countercache_tag__published_articles"),
            "SELECT count(*) FROM tag t WHERE t.published_articles <> (SELECT count(*) FROM article_tag x"
                    + " JOIN blog_article a ON a.id = x.article_id WHERE x.tag_id = t.id AND a.published)",
            null, "16. A where on the far side of a many-to-many", "Tags keep the number of their published articles"
                    + " (`@CounterCache(source = Article.class, via = \"tags\", where = \"published\")` on `Tag`:"
                    + " per link, the rollup keeps whether its article is published in a column of the join table,"
                    + " and the tag sums it; 1,000 tags, every other article published). *hand-written*: a row"
                    + " trigger on the join table that reads the link's article and moves its tag's count, and one on"
                    + " the article that moves the counts of its tags when it is published or unpublished, in the"
                    + " writer's transaction (not exact under concurrency: a link inserted while its article is"
                    + " published is counted by neither).", "",
            LINKS.rows(),
            List.of(new CounterDefinition("Tag.publishedArticles (per link)", new TableName("public", "article_tag"),
                    "article_id", KeyType.BIGINT, "countercache_tag__published_articles", "bigint",
                    new TableName("public", "blog_article"), "id", "published", null, io.countercache.Strategy.QUEUE, 0,
                    null, new CounterDefinition.Extreme(CounterDefinition.Extreme.COUNT, "id"))));

    static final CounterDefinition ARTICLE_COUNT = new CounterDefinition("Article.comments",
            new TableName("public", "blog_article"), "id", KeyType.BIGINT, "comments", "bigint", Variant.COMMENT,
            "article_id", null, null);

    /**
     * 12 and 13. An aggregate: 4 clients insert single comments with random likes (autocommit), then 4 delete random
     * ones, with no counter, with the hand-written trigger and with the library's counter (rolled up every 100 ms).
     * Then the rollup: {@code deltas} queued for a count, and then for the aggregate, at 1, 10 and 1,000 per target,
     * each drained alone.
     */
    Aggregates aggregates(Aggregate kind) throws Exception {
        List<AggregateWrites> writes = new ArrayList<>();
        for (String setup : List.of("bare", "hand-written", "library")) {
            try (Server.Db db = server.newDatabase(kind.name() + "_" + setup.replace('-', '_'));
                 Connection c = db.connect(); Statement st = c.createStatement()) {
                BARE.setUp(c, USERS, ARTICLES);
                st.execute(kind.tables());
                st.execute(kind.rows().seed());
                if (setup.equals("hand-written")) {
                    st.execute(kind.hand());
                    st.execute(kind.handStart());
                }
                if (setup.equals("library")) {
                    Installation.apply(c, Installation.units(kind.counters()));
                    st.execute("CALL countercache.run_recounts()");
                }
                st.execute("VACUUM ANALYZE");
                long top = db.queryLong("SELECT max(id) FROM " + kind.rows().table());
                Clients.Result inserts, deletes;
                try (var rollup = setup.equals("library") ? new Clients.RollupLoop(db, LIBRARY) : null) {
                    inserts = Clients.run(db, 4, warmup(), seconds(8), Long.MAX_VALUE, null, (cc, r) -> {
                        try (PreparedStatement ps = cc.prepareStatement(kind.rows().insert())) {
                            ps.setLong(1, 1 + r.nextInt(USERS));
                            ps.setLong(2, 1 + r.nextInt(ARTICLES));
                            ps.setInt(3, r.nextInt(100_000));
                            ps.executeUpdate();
                        }
                    });
                    deletes = Clients.run(db, 4, warmup(), seconds(8), Long.MAX_VALUE, null, (cc, r) -> {
                        try (PreparedStatement ps = cc.prepareStatement(deleteFrom(kind.rows().table()))) {
                            ps.setLong(1, 1 + (long) (r.nextDouble() * top));
                            ps.executeUpdate();
                        }
                    });
                }
                if (setup.equals("library")) {
                    drainLibrary(st);
                }
                long drift = setup.equals("bare") ? 0 : db.queryLong(kind.drift());
                writes.add(new AggregateWrites(setup, inserts, deletes, drift));
                log("  %s %-12s %,10.0f inserts/s %,10.0f deletes/s, articles off %d", kind.name(), setup,
                        inserts.perSecond(), deletes.perSecond(), drift);
            }
        }
        int deltas = quick ? 20_000 : 100_000;
        Map<Integer, double[]> rollup = new LinkedHashMap<>();
        if (kind.queued() == null) {
            return new Aggregates(kind, writes, deltas, rollup);
        }
        try (Server.Db db = server.newDatabase(kind.name() + "_rollup"); Connection c = db.connect();
             Statement st = c.createStatement()) {
            BARE.setUp(c, USERS, ARTICLES);
            st.execute(kind.tables());
            // an article for each target of a fold of 1, and ten comments each for the aggregate to read (a quick
            // run needs fewer of both: seeding a million comments took a third of its time for these scenarios)
            int articles = deltas, comments = 10 * articles;
            st.execute("INSERT INTO blog_article (id, content) SELECT g, 'more' FROM generate_series(" + (ARTICLES + 1)
                    + ", " + articles + ") g;"
                    + "INSERT INTO blog_comment (creator_id, article_id, message, publish_status, likes) SELECT"
                    + " 1 + g % " + USERS + ", 1 + g % " + articles + ", 'seed', 'public', g % 1000"
                    + " FROM generate_series(1, " + comments + ") g");
            Installation.apply(c, Installation.units(List.of(ARTICLE_COUNT, kind.counter())));
            st.execute("CALL countercache.run_recounts()");
            st.execute("VACUUM ANALYZE");
            for (int fold : List.of(1, 10, 1000)) {
                double[] seconds = new double[2];
                // each is drained twice, once going first and once second, each time from a vacuumed database: the
                // second drain met the first's dead versions of the article rows, and found their pages in the cache
                for (List<CounterDefinition> order : List.of(List.of(ARTICLE_COUNT, kind.counter()),
                        List.of(kind.counter(), ARTICLE_COUNT))) {
                    for (CounterDefinition counter : order) {
                        st.execute((counter == ARTICLE_COUNT ? QUEUED_COUNT : kind.queued())
                                .formatted(deltas, deltas / fold, counter.id()));
                        st.execute("VACUUM ANALYZE");
                        long started = System.nanoTime();
                        while (rolledUp(st) > 0) {
                            // drain, in the session that has rolled up before (a new one per round compiled the rollup)
                        }
                        seconds[counter == ARTICLE_COUNT ? 0 : 1] += (System.nanoTime() - started) / 1e9;
                    }
                }
                double[] rates = {2 * deltas / seconds[0], 2 * deltas / seconds[1]};
                rollup.put(fold, rates);
                log("  %s rollup, %,d per target: count %,10.0f deltas/s, %s %,10.0f deltas/s", kind.name(), fold,
                        rates[0], kind.name(), rates[1]);
            }
        }
        return new Aggregates(kind, writes, deltas, rollup);
    }

    private static void comment(Connection c, long user, long article) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO blog_comment (creator_id, article_id, message,"
                + " publish_status) VALUES (?, ?, 'hello', 'public')")) {
            ps.setLong(1, user);
            ps.setLong(2, article);
            ps.executeUpdate();
        }
    }

    /** Cybertec's "concurrent counting", as published (its extension, tables and register_call), for scenario 8. */
    static final String CYBERTEC_SQL = """
            CREATE TABLE t_customer (id serial PRIMARY KEY, customer_email text NOT NULL UNIQUE, login_whatever_else text);
            CREATE TABLE t_customer_limit (
                id serial PRIMARY KEY,
                customer_id int REFERENCES t_customer (id) ON UPDATE CASCADE ON DELETE SET NULL,
                clicks_per_day int CHECK (clicks_per_day > 0) NOT NULL,
                trange tstzrange,
                EXCLUDE USING gist (trange WITH &&, customer_id WITH =));
            CREATE INDEX idx_limit ON t_customer_limit (customer_id);
            CREATE TABLE t_log (id serial PRIMARY KEY, tstamp timestamptz DEFAULT now() NOT NULL, customer_id int NOT NULL,
                                http_referrer inet, http_other_fields text NOT NULL, request_infos jsonb);
            CREATE INDEX idx_log ON t_log (tstamp, customer_id);
            CREATE TABLE t_log_count (
                customer_id int REFERENCES t_customer (id) ON UPDATE CASCADE ON DELETE SET NULL,
                tdate date NOT NULL, counter_limit int DEFAULT 0, counter_limit_real int DEFAULT 0,
                UNIQUE (customer_id, tdate));
            CREATE INDEX idx_log_count ON t_log_count (tdate, customer_id);
            CREATE FUNCTION register_call(int) RETURNS t_log_count AS $$
               WITH x AS (SELECT * FROM t_customer_limit WHERE now() <@ trange AND customer_id = $1),
                    y AS (INSERT INTO t_log (customer_id, http_other_fields) VALUES ($1, 'whatever info'))
               INSERT INTO t_log_count (customer_id, tdate, counter_limit, counter_limit_real)
                    VALUES ($1, now()::date, 1, 1)
                    ON CONFLICT (customer_id, tdate)
                    DO UPDATE
                       SET counter_limit_real = t_log_count.counter_limit_real + 1,
                           counter_limit = CASE WHEN t_log_count.counter_limit < (SELECT clicks_per_day FROM x)
                                           THEN t_log_count.counter_limit + 1 ELSE t_log_count.counter_limit END
                       WHERE EXCLUDED.customer_id = $1 AND EXCLUDED.tdate = now()::date
               RETURNING *
            $$ LANGUAGE sql;
            """;

    /**
     * 8. Limit counting: admissions per second of the article's register_call and of countercache.admit, on one
     * connection, with 32 clients on one key, and with 32 clients over 1,000 keys. The limit is far away, so every
     * call is admitted and does the same work.
     */
    Map<String, Map<String, Clients.Result>> limits() throws Exception {
        Map<String, Map<String, Clients.Result>> results = new LinkedHashMap<>();
        double seconds = seconds(10);
        for (String variant : List.of("cybertec", "library")) {
            try (Server.Db db = server.newDatabase("limit_" + variant)) {
                try (Connection c = db.connect(); Statement st = c.createStatement()) {
                    if (variant.equals("cybertec")) {
                        st.execute("CREATE EXTENSION IF NOT EXISTS btree_gist");
                        st.execute(CYBERTEC_SQL);
                        st.execute("INSERT INTO t_customer (customer_email) SELECT 'c' || g FROM generate_series(1, 1000) g;"
                                + "INSERT INTO t_customer_limit (customer_id, clicks_per_day, trange)"
                                + " SELECT g, 1000000000, tstzrange(now() - interval '1 day', now() + interval '1 day')"
                                + " FROM generate_series(1, 1000) g");
                    } else {
                        io.countercache.spi.Installation.apply(c, io.countercache.spi.Installation.units(List.of(),
                                List.of(new io.countercache.spi.LimitDefinition("bench", "calls", "1 day", 1_000_000_000L, "UTC", 2))));
                    }
                }
                String sql = variant.equals("cybertec") ? "SELECT register_call(?)" : "SELECT countercache.admit('calls', ?::text)";
                for (Object[] load : new Object[][]{{"1 connection", 1, 1}, {"32 clients, one key", 32, 1},
                        {"32 clients, 1,000 keys", 32, 1000}}) {
                    int clients = (Integer) load[1], keys = (Integer) load[2];
                    Clients.Result r = Clients.run(db, clients, warmup(), seconds, Long.MAX_VALUE, null, (c, random) -> {
                        try (PreparedStatement ps = c.prepareStatement(sql)) {
                            ps.setInt(1, 1 + random.nextInt(keys));
                            ps.execute();
                        }
                    });
                    results.computeIfAbsent((String) load[0], k -> new LinkedHashMap<>()).put(variant, r);
                    log("  limits, %-22s %-8s %,10.0f admissions/s  p99 %7.2f ms", load[0], variant, r.perSecond(),
                            r.p99Millis());
                }
            }
        }
        return results;
    }

    /**
     * 11. Server CPU per statement: each variant's backend reads its own CPU time ({@code /proc/<pid>/schedstat},
     * the first field, nanoseconds on CPU) around a loop of single-row statements in autocommit, the variants
     * alternating round by round so that the machine's noise falls on all of them alike; the lower quartile of the
     * rounds counts (noise only ever adds time: on a shared machine the median moved by 30 µs between runs).
     * Far less noisy than throughput, and it splits a write's cost from the client's and the network's. Empty when
     * the server's processes cannot be read (a server on another machine).
     */
    Map<String, Map<Variant, Double>> cpuPerStatement() throws Exception {
        List<Variant> variants = List.of(BARE, ROW_FLOOR, TRIGGER_ONLY, QUEUE_FLOOR, DEPESZ, DJANGO, LIBRARY);
        int seeded = 50_000, perRound = quick ? 200 : 500, rounds = quick ? 4 : 28;
        Map<Variant, Server.Db> dbs = new LinkedHashMap<>();
        Map<Variant, Connection> connections = new LinkedHashMap<>();
        Map<Variant, Long> pids = new LinkedHashMap<>();
        Map<String, Map<Variant, List<Double>>> samples = new LinkedHashMap<>();
        try {
            for (Variant v : variants) {
                Server.Db db = server.newDatabase("cpu_" + v.label());
                dbs.put(v, db);
                Connection c = db.connect();
                connections.put(v, c);
                v.setUp(c, USERS, ARTICLES);
                db.execute("INSERT INTO blog_comment (creator_id, article_id, message, publish_status) SELECT 1 + g % "
                        + USERS + ", 1 + g % " + ARTICLES + ", 'seed', CASE WHEN g % 3 = 0 THEN 'private' ELSE 'public' END"
                        + " FROM generate_series(1, " + seeded + ") g");
                emptyQueue(c, v);   // the seed's queue rows, which the first round's drain would leave dead
                db.execute("VACUUM ANALYZE");
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                    rs.next();
                    pids.put(v, rs.getLong(1));
                }
                if (!Files.isReadable(java.nio.file.Path.of("/proc/" + pids.get(v) + "/schedstat"))) {
                    log("  server CPU: the server's processes are not readable here; skipped");
                    return Map.of();
                }
            }
            java.util.SplittableRandom random = new java.util.SplittableRandom(11);
            Map<String, CpuOp> ops = new LinkedHashMap<>();
            ops.put("insert", (c, v, i) -> v.insertComment(c, 1 + random.nextInt(ARTICLES), 1 + random.nextInt(USERS)));
            ops.put("flip", (c, v, i) -> flip(c, v, 1 + random.nextInt(seeded / 2)));
            ops.put("reparent", (c, v, i) -> reparent(c, v, 1 + random.nextInt(seeded / 2), 1 + random.nextInt(ARTICLES)));
            ops.put("update, nothing counted", (c, v, i) -> untouched(c, 1 + random.nextInt(seeded / 2)));
            ops.put("delete", (c, v, i) -> delete(c, v, "DELETE FROM blog_comment WHERE id = ?", seeded / 2 + i));   // each once
            for (int round = 0; round <= rounds; round++) {   // round 0 warms caches and plans, and is not counted
                for (var op : ops.entrySet()) {
                    for (Variant v : variants) {
                        Connection c = connections.get(v);
                        c.setAutoCommit(true);
                        long before = cpuNanos(pids.get(v));
                        for (int i = 0; i < perRound; i++) {
                            op.getValue().run(c, v, (long) round * perRound + i);
                        }
                        double micros = (cpuNanos(pids.get(v)) - before) / 1e3 / perRound;
                        if (round > 0) {
                            samples.computeIfAbsent(op.getKey(), k -> new LinkedHashMap<>())
                                    .computeIfAbsent(v, k -> new ArrayList<>()).add(micros);
                        }
                    }
                    for (Variant v : variants) {   // every queue stays short
                        emptyQueue(connections.get(v), v);
                    }
                }
            }
        } finally {
            for (Connection c : connections.values()) {
                c.close();
            }
            for (Server.Db db : dbs.values()) {
                db.close();
            }
        }
        Map<String, Map<Variant, Double>> quartiles = new LinkedHashMap<>();
        samples.forEach((op, byVariant) -> byVariant.forEach((v, xs) -> {
            double quartile = xs.stream().sorted().toList().get(xs.size() / 4);
            quartiles.computeIfAbsent(op, k -> new LinkedHashMap<>()).put(v, quartile);
            log("  server CPU %-24s %-12s %7.1f µs per statement", op, v.label(), quartile);
        }));
        return quartiles;
    }

    /** Empties a variant's queue as its own rollup does (the library's takes the generation first, as a worker does). */
    private static void emptyQueue(Connection c, Variant v) throws SQLException {
        try (Statement st = c.createStatement()) {
            if (v == QUEUE_FLOOR) {
                st.execute("DELETE FROM queue_floor");
            } else if (v.rollupSql(1_000_000) != null) {
                if (v.isLibrary()) {
                    st.execute(Round.TAKE);
                }
                st.execute(v.rollupSql(1_000_000));
            }
        }
    }

    private interface CpuOp {
        void run(Connection c, Variant v, long i) throws SQLException;
    }

    /** A backend's CPU time so far, in nanoseconds (the first field of its schedstat). */
    private static long cpuNanos(long pid) throws java.io.IOException {
        return Long.parseLong(Files.readString(java.nio.file.Path.of("/proc/" + pid + "/schedstat")).split(" ")[0]);
    }

    /** An UPDATE that changes no counted column. */
    private static void untouched(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE blog_comment SET message = 'edited' WHERE id = ?")) {
            ps.setLong(1, id);
            ps.executeUpdate();
        }
    }
}
