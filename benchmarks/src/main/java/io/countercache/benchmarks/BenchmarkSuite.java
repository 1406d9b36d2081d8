package io.countercache.benchmarks;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.logging.Level;
import java.util.logging.Logger;

import static io.countercache.benchmarks.Variant.BARE;
import static io.countercache.benchmarks.Variant.DEPESZ;
import static io.countercache.benchmarks.Variant.DIRECT;
import static io.countercache.benchmarks.Variant.DJANGO;
import static io.countercache.benchmarks.Variant.LIBRARY;
import static io.countercache.benchmarks.Variant.LIBRARY_FILLFACTOR;
import static io.countercache.benchmarks.Variant.QUEUE_FLOOR;
import static io.countercache.benchmarks.Variant.ROW_FLOOR;
import static io.countercache.benchmarks.Variant.TRIGGER_ONLY;

/**
 * Runs every scenario against every variant on one PostgreSQL, in one run, and writes the results as a Markdown
 * report with ratios (measured side by side) and PNG charts.
 *
 * <pre>
 * java -jar benchmarks/target/countercache-benchmarks.jar            # full run, writes docs/benchmarks.md + docs/img
 * java -jar benchmarks/target/countercache-benchmarks.jar --quick    # a short version of every scenario
 *      [--jdbc-url URL --username U --password P] [--out DIR]
 * </pre>
 */
public final class BenchmarkSuite {

    private static final Logger QUIET = Logger.getLogger("");

    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        QUIET.setLevel(Level.WARNING);
        boolean quick = false;
        String only = null;
        String profile = "both";
        String url = null, user = "postgres", password = "postgres";
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> only = args[++i];
                case "--profile" -> profile = args[++i];
                case "--jdbc-url" -> url = args[++i];
                case "--username" -> user = args[++i];
                case "--password" -> password = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: countercache-benchmarks [--quick] [--only N] [--profile durable|cpu|both] [--jdbc-url URL --username U --password P] [--out DIR]");
                    System.exit(2);
                }
            }
        }
        if (out == null) {
            out = quick ? Path.of("benchmarks/target/quick") : only != null ? Path.of("benchmarks/target/only-" + only)
                    : Path.of("docs");
        }
        List<Server.Profile> profiles = switch (profile) {
            case "both" -> List.of(Server.Profile.DURABLE, Server.Profile.CPU_BOUND);
            case "durable" -> List.of(Server.Profile.DURABLE);
            case "cpu" -> List.of(Server.Profile.CPU_BOUND);
            default -> throw new IllegalArgumentException("--profile must be durable, cpu or both, not " + profile);
        };
        for (Server.Profile p : url != null ? List.of(Server.Profile.EXTERNAL) : profiles) {
            run(p, quick, only, url, user, password, out);
        }
    }

    private static void run(Server.Profile profile, boolean quick, String only, String url, String user,
                            String password, Path out) throws Exception {
        Files.createDirectories(out.resolve("img"));
        long started = System.nanoTime();
        try (Server server = url == null ? Server.embedded(profile) : Server.at(url, user, password)) {
            System.out.println("profile " + profile.label());
            Scenarios s = new Scenarios(server, quick);
            Report report = new Report(quick, out, profile);
            report.environment(server);
            if (runs(only, "1", "hot row", started)) {
                report.hotRow(0, s.hotRow(0));
                report.hotRow(10, s.hotRow(10));
            }
            if (runs(only, "2", "deadlocks", started)) {
                report.deadlocks(s.deadlocks());
            }
            if (runs(only, "3", "single-row writes", started)) {
                report.singleRow(s.singleRowWrites());
            }
            if (runs(only, "4", "bulk statements", started)) {
                report.bulk(s.bulkRows(), s.bulk());
            }
            if (runs(only, "5", "rollup", started)) {
                Map<Integer, Map<Variant, Double>> folds = new LinkedHashMap<>();
                for (int fold : List.of(1, 10, 1000)) {
                    folds.put(fold, s.rollup(fold));
                }
                report.rollup(s.rollupDeltas(), folds);
                Map<Integer, double[]> workers = new LinkedHashMap<>();
                for (int fold : List.of(1, 10, 1000)) {
                    workers.put(fold, s.rollupWorkers(fold));
                }
                report.rollupWorkers(workers);
            }
            if (runs(only, "6", "staleness", started)) {
                report.staleness(List.of(s.staleness(500), s.staleness(2000), s.staleness(8000)));
            }
            if (runs(only, "7", "bloat", started)) {
                report.bloat(s.bloatChanges(), s.bloat());
            }
            if (runs(only, "8", "limit counting", started)) {
                report.limits(s.limits());
            }
            if (runs(only, "9", "recount under writes", started)) {
                report.recount(s.recount());
            }
            if (runs(only, "10", "counters along a path", started)) {
                report.paths(s.paths());
            }
            if (runs(only, "12", "min and max", started)) {
                report.aggregates(s.aggregates(Scenarios.MAX));
            }
            if (runs(only, "13", "distinct values", started)) {
                report.aggregates(s.aggregates(Scenarios.DISTINCT));
            }
            if (runs(only, "14", "counters per day", started)) {
                report.aggregates(s.aggregates(Scenarios.BUCKET));
            }
            if (runs(only, "15", "many-to-many", started)) {
                report.aggregates(s.aggregates(Scenarios.LINKS));
            }
            if (runs(only, "16", "a where on the far side of a many-to-many", started)) {
                report.aggregates(s.aggregates(Scenarios.FAR_WHERE));
            }
            if (runs(only, "11", "server CPU per statement", started)) {
                report.cpu(s.cpuPerStatement());
            }
            report.write(String.format(Locale.ROOT, "%.0f", (System.nanoTime() - started) / 1e9));
            System.out.printf(Locale.ROOT, "Wrote %s (%.0f s)%n", out.resolve(profile.file()),
                    (System.nanoTime() - started) / 1e9);
        }
    }

    /**
     * Whether scenario {@code n} runs: all do unless {@code --only} names one (its report then goes elsewhere). One
     * that runs is announced with the seconds since the profile started, so that a log tells what each one took.
     */
    private static boolean runs(String only, String n, String title, long started) {
        boolean runs = only == null || only.equals(n);
        if (runs) {
            System.out.printf(Locale.ROOT, "%s. %s (at %.0f s)%n", n, title, (System.nanoTime() - started) / 1e9);
        }
        return runs;
    }

    /** Collects sections, goals and charts, then writes benchmarks.md. */
    static final class Report {
        private final boolean quick;
        private final Path out;
        private final Server.Profile profile;
        private final StringBuilder body = new StringBuilder();
        private final List<String> goals = new ArrayList<>();
        /** Per strategy (library variant): its figures for the summary table, by column. */
        private final Map<Variant, Map<String, String>> strategies = new LinkedHashMap<>();
        private String environment = "";

        Report(boolean quick, Path out, Server.Profile profile) {
            this.quick = quick;
            this.out = out;
            this.profile = profile;
            for (Variant v : Variant.values()) {
                if (v.isLibrary() && v != LIBRARY_FILLFACTOR) {   // one scenario's remedy, not a strategy
                    strategies.put(v, new LinkedHashMap<>());
                }
            }
        }

        private void strategy(Variant v, String column, String value) {
            if (strategies.containsKey(v)) {
                strategies.get(v).put(column, value);
            }
        }

        /** The images of this profile: the durable profile's keep their names, the others' get a suffix. */
        private String img(String name) {
            return profile == Server.Profile.CPU_BOUND ? name + "-cpu" : name;
        }

        void environment(Server server) throws Exception {
            StringBuilder e = new StringBuilder();
            e.append("| | |\n|---|---|\n");
            e.append("| date | ").append(LocalDate.now(ZoneOffset.UTC)).append(" |\n");
            e.append("| command | `java -jar benchmarks/target/countercache-benchmarks.jar").append(quick ? " --quick" : "").append("` |\n");
            e.append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
            e.append("| memory | ").append(memory()).append(" |\n");
            e.append("| Java | ").append(System.getProperty("java.version")).append(" |\n");
            try (Connection c = server.admin(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT version(), current_setting('shared_buffers'),"
                         + " current_setting('synchronous_commit'), current_setting('fsync'), current_setting('wal_level')")) {
                rs.next();
                e.append("| PostgreSQL | ").append(rs.getString(1).replaceAll(",.*", "")).append(" (same machine, loopback) |\n");
                e.append("| settings | shared_buffers ").append(rs.getString(2)).append(", synchronous_commit ")
                        .append(rs.getString(3)).append(", fsync ").append(rs.getString(4)).append(", wal_level ")
                        .append(rs.getString(5)).append("; otherwise defaults |\n");
            }
            environment = e.toString();
        }

        private static String memory() {
            try {
                String line = Files.readAllLines(Path.of("/proc/meminfo")).get(0);
                long kb = Long.parseLong(line.replaceAll("\\D", ""));
                return String.format(Locale.ROOT, "%.0f GiB", kb / 1024.0 / 1024.0);
            } catch (Exception e) {
                return "unknown";
            }
        }

        private void goal(String what, double value, String target, boolean met) {
            goals.add(String.format(Locale.ROOT, "| %s | %s | %s | %s |", what, fmt(value), target, met ? "met" : "**not met**"));
        }

        private static String fmt(double v) {
            return v >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
        }

        void hotRow(int hold, Map<Variant, Clients.Result> r) throws Exception {
            body.append("\n### 1. Hot row, ").append(hold).append(" ms of other work per transaction\n\n")
                    .append("16 clients insert public comments on one article (users at random); each transaction waits ")
                    .append(hold).append(" ms before commit. Queue variants run their rollup every 100 ms meanwhile")
                    .append(" (the library's after a take of the generation, as its worker does). Three rounds of 5 s per")
                    .append(" variant, the variants taking turns; the rates are over all three.\n\n")
                    .append("| variant | tx/s | p50 ms | p99 ms | tx/s vs bare |\n|---|---:|---:|---:|---:|\n");
            double bare = r.get(BARE).perSecond();
            r.forEach((v, x) -> body.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %.2fx |%n",
                    v.label(), x.perSecond(), x.p50Millis(), x.p99Millis(), x.perSecond() / bare)));
            r.forEach((v, x) -> strategy(v, "hot row " + hold + " ms tx/s (vs bare)",
                    String.format(Locale.ROOT, "%,.0f (%.2fx)", x.perSecond(), x.perSecond() / bare)));
            double lib = r.get(LIBRARY).perSecond(), depesz = r.get(DEPESZ).perSecond();
            goal("hot row " + hold + " ms: library / depesz", lib / depesz, ">= 1", lib >= depesz);
            double tuned = r.get(LIBRARY_FILLFACTOR).perSecond();
            goal("hot row " + hold + " ms: library with fillfactor 50 on the targets / depesz", tuned / depesz, ">= 1",
                    tuned >= depesz);
            if (hold > 0) {
                goal("hot row " + hold + " ms: library / bare", lib / bare, ">= 0.95", lib / bare >= 0.95);
            }
            goal("hot row " + hold + " ms: library / direct", lib / r.get(DIRECT).perSecond(), ">= 12",
                    lib / r.get(DIRECT).perSecond() >= 12);
            String name = img("hot-row-" + hold + "ms");
            chart(name + "-throughput", "Hot row, " + hold + " ms held: transactions per second", "tx/s",
                    r, x -> x.perSecond());
            chart(name + "-p99", "Hot row, " + hold + " ms held: p99 latency (ms)", "ms", r, x -> x.p99Millis());
            body.append("\n![throughput](img/").append(name).append("-throughput.png) ![p99](img/").append(name).append("-p99.png)\n");
        }

        void deadlocks(Map<Variant, Clients.Result> r) {
            body.append("\n### 2. Deadlocks\n\n8 clients; each transaction comments on articles 1 and 2 in random order, 1 ms apart.\n\n")
                    .append("| variant | transactions | deadlocks | per 10,000 |\n|---|---:|---:|---:|\n");
            r.forEach((v, x) -> {
                long total = x.ops() + x.deadlocks();
                body.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %.1f |%n", v.label(), total, x.deadlocks(),
                        x.deadlocks() * 10_000.0 / total));
            });
            r.forEach((v, x) -> strategy(v, "deadlocks per 10,000",
                    String.format(Locale.ROOT, "%.1f", x.deadlocks() * 10_000.0 / (x.ops() + x.deadlocks()))));
            Clients.Result lib = r.get(LIBRARY);
            goal("deadlocks per 10,000: library", lib.deadlocks() * 10_000.0 / (lib.ops() + lib.deadlocks()), "0",
                    lib.deadlocks() == 0);
        }

        void singleRow(Map<String, Map<Variant, Clients.Result>> r) {
            List<Variant> variants = List.copyOf(r.values().iterator().next().keySet());
            body.append("\n### 3. Single-row writes\n\n4 clients, one write per transaction (autocommit; `direct` wraps")
                    .append(" the write and its counter updates in one transaction). Writes per second, over three rounds")
                    .append(" of 3 s per variant, the variants taking turns.\n\n| write | ")
                    .append(variants.stream().map(Variant::label).collect(Collectors.joining(" | ")))
                    .append(" | library vs bare | library vs depesz |\n|---|")
                    .append("---:|".repeat(variants.size() + 2)).append("\n");
            r.forEach((op, m) -> {
                double bare = m.get(BARE).perSecond(), lib = m.get(LIBRARY).perSecond(), depesz = m.get(DEPESZ).perSecond();
                body.append("| ").append(op).append(" | ")
                        .append(variants.stream().map(v -> String.format(Locale.ROOT, "%,.0f", m.get(v).perSecond()))
                                .collect(Collectors.joining(" | ")))
                        .append(String.format(Locale.ROOT, " | %.2fx | %.2fx |%n", lib / bare, lib / depesz));
                m.forEach((v, x) -> strategy(v, op + "/s (vs bare)",
                        String.format(Locale.ROOT, "%,.0f (%.2fx)", x.perSecond(), x.perSecond() / bare)));
                goal("single-row " + op + ": library / depesz", lib / depesz, ">= 1", lib >= depesz);
                if (profile != Server.Profile.CPU_BOUND) {
                    goal("single-row " + op + ": library / bare", lib / bare, ">= 0.9", lib / bare >= 0.9);
                }
            });
        }

        void bulk(int rows, Map<Variant, double[]> r) {
            body.append(String.format(Locale.ROOT, "%n### 4. Bulk statements%n%nOne statement each over %,d rows"
                    + " (seconds; lower is better): the least of three cycles, the variants taking turns, each cycle"
                    + " from an empty queue.%n%n", rows))
                    .append("| variant | INSERT ... SELECT | UPDATE | DELETE |\n|---|---:|---:|---:|\n");
            r.forEach((v, x) -> body.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", v.label(), x[0], x[1], x[2])));
            String[] ops = {"insert", "update", "delete"};
            r.forEach((v, x) -> strategy(v, "bulk insert, update, delete: speed vs bare", String.format(Locale.ROOT,
                    "%.2f, %.2f, %.2f", r.get(BARE)[0] / x[0], r.get(BARE)[1] / x[1], r.get(BARE)[2] / x[2])));
            for (int i = 0; i < 3; i++) {
                double vsBare = r.get(BARE)[i] / r.get(LIBRARY)[i];
                double vsDepesz = r.get(DEPESZ)[i] / r.get(LIBRARY)[i];
                goal("bulk " + ops[i] + ": library speed / bare", vsBare, ">= 0.85", vsBare >= 0.85);
                goal("bulk " + ops[i] + ": library speed / depesz", vsDepesz, "> 1", vsDepesz > 1);
            }
        }

        void cpu(Map<String, Map<Variant, Double>> r) {
            body.append("\n### 11. Server CPU per statement\n\n");
            if (r.isEmpty()) {
                body.append("Not measured: the server's processes cannot be read from here.\n");
                return;
            }
            List<Variant> variants = List.copyOf(r.values().iterator().next().keySet());
            body.append("One client per variant, one statement per transaction; the backend's own CPU time per statement")
                    .append(" (µs, `/proc/<pid>/schedstat`), the variants alternating round by round, lower quartile of")
                    .append(" the rounds. The cost of the counters is the difference to bare. *trigger-only* is the")
                    .append(" library's trigger machinery with no query (statement triggers with transition tables on a")
                    .append(" `SECURITY DEFINER` function with a pinned `search_path`); *library's queries* compares")
                    .append(" what the library's queries add above it with depesz's whole row trigger. *queue-floor* is")
                    .append(" trigger-only plus one INSERT of the row's two queue rows into a table shaped like the")
                    .append(" library's queue, for inserts and deletes; for an update, one query over both transition")
                    .append(" tables that tells whether a counted column changed, and the queue rows of what the")
                    .append(" old version counted and the new one counts if one did:")
                    .append(" the least a capture that queues adds, which the last column compares with depesz's whole")
                    .append(" row trigger. After each operation's round every variant's queue is emptied, each by")
                    .append(" its own rollup (*queue-floor*'s by a `DELETE`).")
                    .append(" *row-floor* has one row trigger, `AFTER UPDATE OF` the counted columns, that returns at")
                    .append(" once: an UPDATE of no counted column never fires it, the least any trigger adds to")
                    .append(" such an UPDATE.\n\n")
                    .append("| statement | ")
                    .append(variants.stream().map(Variant::label).collect(Collectors.joining(" | ")))
                    .append(" | library's added cost / depesz's | library's queries / depesz's | queue floor's added")
                    .append(" cost / depesz's |\n|---|").append("---:|".repeat(variants.size() + 3)).append("\n");
            r.forEach((op, m) -> {
                double bare = m.get(BARE), lib = m.get(LIBRARY), depesz = m.get(DEPESZ);
                double ratio = (lib - bare) / Math.max(0.1, depesz - bare);
                double queries = (lib - m.get(TRIGGER_ONLY)) / Math.max(0.1, depesz - bare);
                body.append("| ").append(op).append(" | ")
                        .append(variants.stream().map(v -> String.format(Locale.ROOT, "%.1f", m.get(v)))
                                .collect(Collectors.joining(" | ")))
                        .append(String.format(Locale.ROOT, " | %.2fx | %.2fx | %.2fx |%n", ratio, queries,
                                (m.get(QUEUE_FLOOR) - bare) / Math.max(0.1, depesz - bare)));
                goal("server CPU, " + op + ": library / depesz", lib / depesz, "<= 1", lib <= depesz);
                if (op.startsWith("update, nothing counted")) {
                    goal("server CPU, " + op + ": library - bare (µs)", lib - bare, "<= 5", lib - bare <= 5);
                    goal("server CPU, " + op + ": row-floor - bare (µs), for comparison", m.get(ROW_FLOOR) - bare,
                            "<= 5", m.get(ROW_FLOOR) - bare <= 5);
                    goal("server CPU, " + op + ": queue-floor - bare (µs), for comparison", m.get(QUEUE_FLOOR) - bare,
                            "<= 5", m.get(QUEUE_FLOOR) - bare <= 5);
                }
            });
        }

        void rollup(int deltas, Map<Integer, Map<Variant, Double>> folds) throws Exception {
            List<Variant> variants = List.copyOf(folds.values().iterator().next().keySet());
            body.append(String.format(Locale.ROOT, "%n### 5. Rollup%n%nDrain %,d queued +1 deltas, batches of 10,000,"
                    + " at three fold ratios (deltas per target). Deltas per second.%n%n| deltas per target | ", deltas))
                    .append(variants.stream().map(Variant::label).collect(Collectors.joining(" | ")))
                    .append(" | library vs depesz |\n|---:|").append("---:|".repeat(variants.size() + 1)).append("\n");
            CategoryChart chart = bars("Rollup: deltas applied per second", "deltas/s");
            folds.forEach((fold, r) -> {
                double lib = r.get(LIBRARY), depesz = r.get(DEPESZ);
                body.append(String.format(Locale.ROOT, "| %,d | ", fold))
                        .append(variants.stream().map(v -> String.format(Locale.ROOT, "%,.0f", r.get(v)))
                                .collect(Collectors.joining(" | ")))
                        .append(String.format(Locale.ROOT, " | %.2fx |%n", lib / depesz));
                goal("rollup at " + fold + " per target: library / depesz", lib / depesz, "> 1", lib > depesz);
                r.forEach((v, x) -> strategy(v, "rollup deltas/s at " + fold + " per target",
                        String.format(Locale.ROOT, "%,.0f", x)));
                chart.addSeries(fold + " per target", variants.stream().map(Variant::label).toList(),
                        variants.stream().map(r::get).toList());
            });
            double atThousand = folds.get(1000).get(LIBRARY);
            goal("rollup deltas/s at 1,000 per target: library", atThousand, ">= 1,000,000", atThousand >= 1_000_000);
            chart.getStyler().setLegendVisible(true);
            BitmapEncoder.saveBitmap(chart, out.resolve("img/" + img("rollup")).toString(), BitmapEncoder.BitmapFormat.PNG);
            body.append("\n![rollup](img/").append(img("rollup")).append(".png)\n");
        }

        void rollupWorkers(Map<Integer, double[]> folds) {
            body.append(String.format(Locale.ROOT, "%nThe library's rollup by one worker, which claims alone; by one"
                    + " beside rounds in flight (a session locking the claim row `FOR SHARE` in transactions of 50 ms,"
                    + " one after the other, as rounds in lanes do), so that it claims with `FOR UPDATE SKIP LOCKED` but"
                    + " for a round that starts between two of them; by two at once on the same queue; and by two in"
                    + " lanes of their own (`rollup_report(10000, false, 2)`), each taking the generation before each"
                    + " round of 10,000, deltas/s:%n%n| deltas per target | one | beside rounds | two | two in lanes |"
                    + " two / one | in lanes / one |%n|---:|---:|---:|---:|---:|---:|---:|%n"));
            folds.forEach((fold, r) -> {
                body.append(String.format(Locale.ROOT, "| %,d | %,.0f | %,.0f | %,.0f | %,.0f | %.2fx | %.2fx |%n", fold,
                        r[0], r[1], r[2], r[3], r[2] / r[0], r[3] / r[0]));
                double best = Math.max(r[2], r[3]) / r[0];
                goal("rollup at " + String.format(Locale.ROOT, "%,d", fold) + " per target: two workers / one, the"
                        + " better of without and in lanes", best, ">= 1.8", best >= 1.8);
            });
        }

        void staleness(List<Scenarios.Staleness> runs) {
            body.append(String.format(Locale.ROOT, "%n### 6. Staleness%n%nSustained inserts by 8 clients at three target"
                    + " rates, one RollupWorker with default settings (batch 10,000, poll 200 ms) on a pool of one session, as an"
                    + " application's pool would hand it. A probe commits a"
                    + " comment every 20 ms and polls its article's counter until it shows.%n%n"
                    + "| writes/s | probes | p50 ms | p99 ms | max ms |%n|---:|---:|---:|---:|---:|%n"));
            for (Scenarios.Staleness s : runs) {
                var h = s.lagMicros();
                body.append(String.format(Locale.ROOT, "| %,.0f | %d | %.0f | %.0f | %.0f |%n", s.writesPerSecond(),
                        h.getTotalCount(), h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                        h.getMaxValue() / 1000.0));
            }
            Scenarios.Staleness goalRun = runs.get(runs.size() / 2);
            double p99 = goalRun.lagMicros().getValueAtPercentile(99) / 1000.0;
            goal("staleness p99 ms at " + String.format(Locale.ROOT, "%,.0f", goalRun.writesPerSecond()) + " writes/s", p99,
                    "<= 500", p99 <= 500);
        }

        void bloat(int changes, Map<Variant, long[]> r) {
            body.append(String.format(Locale.ROOT, "%n### 7. Bloat%n%nSizes after %,d counter changes to 100 articles and"
                    + " 100 users (kB, autovacuum on). The queue (`countercache.delta` and its two generations) is"
                    + " measured under load (before any rollup) and after a drain and a `VACUUM`: its heap returns to"
                    + " empty; a generation taken whole is truncated, heap and index, while the queue's own index keeps"
                    + " its pages, empty and reused by the next deltas.%n%n| variant | article + user tables |"
                    + " queue heap under load | queue index under load | heap after drain + VACUUM |"
                    + " index after |%n|---|---:|---:|---:|---:|---:|%n", changes));
            r.forEach((v, x) -> body.append(String.format(Locale.ROOT, "| %s | %,d | %s |%n", v.label(), x[0] / 1024,
                    v.isLibrary() ? String.format(Locale.ROOT, "%,d | %,d | %,d | %,d", x[1] / 1024, x[2] / 1024,
                            x[3] / 1024, x[4] / 1024) : "- | - | - | -")));
        }

        void limits(Map<String, Map<String, Clients.Result>> r) {
            body.append("\n### 8. Limit counting\n\nAdmissions per second of Cybertec's `register_call` (reproduced from the"
                    + " article: its tables, its exclusion constraint, its log insert and its upsert) and of"
                    + " `countercache.admit`, on the same server; the limit is never reached, so every call does the same"
                    + " work. The article reports about 2,000/s on one connection on its author's machine.\n\n"
                    + "| load | cybertec/s | p99 ms | library/s | p99 ms | library vs cybertec |\n|---|---:|---:|---:|---:|---:|\n");
            r.forEach((load, m) -> {
                Clients.Result a = m.get("cybertec"), l = m.get("library");
                body.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %,.0f | %.2f | %.2fx |%n", load,
                        a.perSecond(), a.p99Millis(), l.perSecond(), l.p99Millis(), l.perSecond() / a.perSecond()));
            });
        }

        void paths(List<Scenarios.Path> runs) {
            double bare = runs.get(0).inserts().perSecond();
            body.append(String.format(Locale.ROOT, "%n### 10. Counters along a path%n%nComments count for the blog of"
                    + " their article (`via = \"article.blog\"`; 10 blogs, %,d articles). 4 clients insert single comments"
                    + " (autocommit) on any article, then 16 clients on the articles of one blog; then one `UPDATE` moves"
                    + " an article with %,d comments to another blog, and one moves it back (the median of five each). *hand-written*: row triggers that update the blog in the writer's transaction (and count"
                    + " an article's comments when it moves), as one would write them; *library, locking*: the path"
                    + " counter whose writers lock the article (`FOR KEY SHARE`, a move `FOR UPDATE`), as the SQL API's"
                    + " `Via` declares it; *library, by levels*: the same counted level by level, as the Hibernate"
                    + " integration declares it (a column of the library's on each article, which the blog sums); both"
                    + " queue strategy, rolled up every 100 ms. Blogs off: blogs whose counter differs from a recount"
                    + " at the end.%n%n| setup | inserts/s | vs bare | p99 ms | one blog, 16 clients: inserts/s | vs bare"
                    + " | move ms | move back ms | blogs off |%n|---|---:|---:|---:|---:|---:|---:|---:|---:|%n",
                    Scenarios.ARTICLES, runs.get(0).moved()));
            double bareHot = runs.get(0).hot().perSecond();
            for (Scenarios.Path p : runs) {
                body.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2fx | %.2f | %,.0f | %.2fx | %.1f | %.1f | %d |%n",
                        p.setup(), p.inserts().perSecond(), p.inserts().perSecond() / bare, p.inserts().p99Millis(),
                        p.hot().perSecond(), p.hot().perSecond() / bareHot, p.moveMillis(), p.moveBackMillis(), p.drift()));
            }
            Scenarios.Path hand = runs.get(1), lib = runs.get(3);
            double spread = lib.inserts().perSecond() / hand.inserts().perSecond();
            double hot = lib.hot().perSecond() / hand.hot().perSecond();
            goal("path counter inserts/s, spread: library by levels / hand-written", spread, ">= 1", spread >= 1);
            goal("path counter inserts/s, one blog: library by levels / hand-written", hot, "> 1", hot > 1);
        }

        void aggregates(Scenarios.Aggregates e) {
            String what = e.kind().name();
            double bareIn = e.writes().get(0).inserts().perSecond(), bareDel = e.writes().get(0).deletes().perSecond();
            body.append(String.format(Locale.ROOT, "%n### %s%n%n%s", e.kind().heading(), e.kind().described()));
            body.append(String.format(Locale.ROOT, " 4 clients insert single rows of `%s` (autocommit) into a table"
                    + " of 100,000, then 4 delete rows (each the first at or after a random id). *library*: the %s"
                    + " counter, queue strategy, rolled up every 100 ms. Off: targets whose column differs from the source at the end.%n%n"
                    + "| setup | inserts/s | vs bare | deletes/s | vs bare | off |%n|---|---:|---:|---:|---:|---:|%n",
                    e.kind().rows().table(), what));
            for (Scenarios.AggregateWrites w : e.writes()) {
                body.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2fx | %,.0f | %.2fx | %d |%n", w.setup(),
                        w.inserts().perSecond(), w.inserts().perSecond() / bareIn, w.deletes().perSecond(),
                        w.deletes().perSecond() / bareDel, w.drift()));
            }
            if (e.rollup().isEmpty()) {
                goals(what, e);
                return;
            }
            body.append(String.format(Locale.ROOT, "%nThe rollup: %,d deltas queued for a count, or for the %s"
                    + " (%,d articles, %,d comments), each target's deltas spread through the queue, drained"
                    + " alone with rounds of 100,000 after a `VACUUM ANALYZE`; each is drained twice, once before"
                    + " the other and once after it, and the rate is over both. %s%n%n"
                    + "| per target | count deltas/s | %s deltas/s | %s / count |%n|---:|---:|---:|---:|%n", e.deltas(), what,
                    e.deltas(), 10 * e.deltas(), e.kind().rollupNote(), what, what));
            e.rollup().forEach((fold, r) -> body.append(String.format(Locale.ROOT, "| %,d | %,.0f | %,.0f | %.2fx |%n",
                    fold, r[0], r[1], r[1] / r[0])));
            goals(what, e);
        }

        private void goals(String what, Scenarios.Aggregates e) {
            Scenarios.AggregateWrites hand = e.writes().get(1), lib = e.writes().get(2);
            double in = lib.inserts().perSecond() / hand.inserts().perSecond();
            double del = lib.deletes().perSecond() / hand.deletes().perSecond();
            goal(what + ", inserts/s: library / hand-written", in, ">= 1", in >= 1);
            goal(what + ", deletes/s: library / hand-written", del, ">= 1", del >= 1);
        }

        void recount(Scenarios.Recount r) {
            double quietMax = r.quiet().latencyMicros().getMaxValue() / 1000.0;
            double onlineMax = r.duringRecount().latencyMicros().getMaxValue() / 1000.0;
            double lockingMax = r.duringLockingRecount().latencyMicros().getMaxValue() / 1000.0;
            body.append(String.format(Locale.ROOT, "%n### 9. Recount under writes%n%n4 clients insert single comments"
                    + " (autocommit) into a table of %,d comments over %,d articles, first alone, then while the"
                    + " public-comments-per-article counter is recounted back to back: by `countercache.recount` (no lock"
                    + " on the source: it queues corrections), then by the recount of a hand-written counter (`LOCK TABLE"
                    + " ... IN SHARE MODE` and an absolute `UPDATE`, as this library did before). Batched is `CALL"
                    + " countercache.run_recounts(100)` alone: one transaction per 100 articles, rolled up after each. Before each"
                    + " phase the comments the writers added are deleted, so every recount reads the same rows.%n%n"
                    + "| writers | inserts/s | p99 ms | max ms | recount s | source rows/s |%n|---|---:|---:|---:|---:|---:|%n"
                    + "| alone | %,.0f | %.1f | %.1f | | |%n"
                    + "| during countercache.recount (%d runs) | %,.0f | %.1f | %.1f | %.2f | %,.0f |%n"
                    + "| during a locking recount | %,.0f | %.1f | %.1f | %.2f | %,.0f |%n"
                    + "| (batched run_recounts, no writers) | | | | %.2f | %,.0f |%n",
                    r.sourceRows(), Scenarios.ARTICLES,
                    r.quiet().perSecond(), r.quiet().p99Millis(), quietMax,
                    r.recounts(), r.duringRecount().perSecond(), r.duringRecount().p99Millis(), onlineMax,
                    r.recountSeconds(), r.sourceRows() / r.recountSeconds(),
                    r.duringLockingRecount().perSecond(), r.duringLockingRecount().p99Millis(), lockingMax,
                    r.lockingRecountSeconds(), r.sourceRows() / r.lockingRecountSeconds(),
                    r.batchedSeconds(), r.sourceRows() / r.batchedSeconds()));
            goal("max writer latency ms during a recount of " + String.format(Locale.ROOT, "%,d", r.sourceRows())
                    + " rows", onlineMax, "< 50", onlineMax < 50);
        }

        private interface Metric {
            double of(Clients.Result r);
        }

        private void chart(String file, String title, String unit, Map<Variant, Clients.Result> r, Metric m) throws Exception {
            CategoryChart chart = bars(title, unit);
            chart.addSeries(unit, r.keySet().stream().map(Variant::label).toList(),
                    r.values().stream().map(m::of).toList());
            BitmapEncoder.saveBitmap(chart, out.resolve("img/" + file).toString(), BitmapEncoder.BitmapFormat.PNG);
        }

        private static CategoryChart bars(String title, String unit) {
            CategoryChart chart = new CategoryChartBuilder().width(640).height(360).title(title).yAxisTitle(unit).build();
            chart.getStyler().setLegendVisible(false);
            chart.getStyler().setLabelsVisible(true);
            chart.getStyler().setDecimalPattern("#,##0.#");
            return chart;
        }

        void write(String seconds) throws Exception {
            StringBuilder md = new StringBuilder();
            Server.Profile other = profile == Server.Profile.CPU_BOUND ? Server.Profile.DURABLE : Server.Profile.CPU_BOUND;
            md.append("# countercache benchmarks: ").append(profile.label()).append(" profile\n\n")
                    .append("Generated by `benchmarks` (").append(quick ? "quick run" : "full run").append(", ")
                    .append(seconds).append(" s). ").append(profile.description())
                    .append(profile == Server.Profile.EXTERNAL ? "" : " The same scenarios in the " + other.label()
                            + " profile: [" + other.file() + "](" + other.file() + ").")
                    .append(" Every figure comes from one run on one PostgreSQL; ratios compare")
                    .append(" variants measured side by side in that run. These machines are shared and noisy: read")
                    .append(" the ratios, not the absolute numbers.\n\n")
                    .append("Variants: **bare** (no counter), **direct** (`UPDATE ... SET n = n + 1` from the client in")
                    .append(" the writer's transaction, as Rails and Django's F() do), **depesz** (his queue and")
                    .append(" `apply_counter_queue`, fed by a hand-written row trigger: the baseline to beat), **django**")
                    .append(" (the article's trigger, `counting_task` and `counting_process_tasks`), **library** (countercache,")
                    .append(" strategy `queue`, the default), **library-unlogged**, **library-slotted** (16 slots) and")
                    .append(" **library-direct** (the other strategies), and in scenario 1 **library-fillfactor** (strategy")
                    .append(" `queue` with `fillfactor` 50 on the target tables, the remedy for a hot parent row: see")
                    .append(" [scaling.md](scaling.md)). Counters: the Django article's two, public")
                    .append(" comments per article and per user.\n\n")
                    .append("## Environment\n\n").append(environment)
                    .append("\n## Goals\n\n| goal | measured | target | |\n|---|---:|---|---|\n")
                    .append(String.join("\n", goals)).append("\n\n").append(strategyTable())
                    .append("\n## Scenarios\n").append(body);
            Files.writeString(out.resolve(profile.file()), md.toString(), StandardCharsets.UTF_8);
        }

        /** One row per strategy, its figures from every scenario it ran in. */
        private String strategyTable() {
            List<String> columns = strategies.values().stream().flatMap(m -> m.keySet().stream()).distinct().toList();
            if (columns.isEmpty()) {
                return "";
            }
            StringBuilder t = new StringBuilder("## Strategies\n\nEach strategy's figures from the scenarios below"
                    + " (a blank: the scenario does not run it). Staleness: the queue strategies share the rollup worker"
                    + " (scenario 6); direct is exact at commit.\n\n| | ");
            List<Variant> rows = List.copyOf(strategies.keySet());
            t.append(rows.stream().map(v -> v.strategy().sqlName()).collect(Collectors.joining(" | ")))
                    .append(" |\n|---|").append("---:|".repeat(rows.size())).append("\n");
            for (String column : columns) {
                t.append("| ").append(column).append(" | ").append(rows.stream()
                        .map(v -> strategies.get(v).getOrDefault(column, "")).collect(Collectors.joining(" | ")))
                        .append(" |\n");
            }
            return t.toString();
        }
    }
}
