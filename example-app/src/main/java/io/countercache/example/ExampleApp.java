package io.countercache.example;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.countercache.RollupWorker;
import io.countercache.liquibase.CounterCacheLiquibase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

import javax.sql.DataSource;
import java.io.Closeable;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The main job: the blog of the Django article on PostgreSQL, written to by concurrent Hibernate transactions and
 * plain SQL while rollup workers run, then every counter read as an entity property beside its exact recount.
 * Exits 1 if any counter differs.
 *
 * <pre>
 * java -jar example-app/target/countercache-example.jar                   # embedded PostgreSQL
 * java -jar countercache-example.jar --jdbc-url jdbc:postgresql://host/db --username u --password p
 * java -jar countercache-example.jar migrate [--jdbc-url ...]             # apply the changelog and exit
 * </pre>
 */
public final class ExampleApp {

    /** Liquibase and Hibernate log through java.util.logging here; the example keeps their warnings only. */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("liquibase"), Logger.getLogger("org.hibernate"));

    private ExampleApp() {
    }

    public static void main(String[] args) throws Exception {
        int status = run(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Runs the example; returns the process exit status (0: every counter exact). */
    static int run(String[] args) throws Exception {
        QUIET.forEach(l -> l.setLevel(Level.WARNING));
        Map<String, String> options = new HashMap<>();
        boolean migrateOnly = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "migrate" -> migrateOnly = true;
                case "--jdbc-url", "--username", "--password", "--threads", "--transactions" -> {
                    if (i + 1 >= args.length) {
                        usage("missing value for " + args[i]);
                    }
                    options.put(args[i], args[++i]);
                }
                case "--help", "-h" -> usage(null);
                default -> usage("unknown argument " + args[i]);
            }
        }
        long started = System.nanoTime();
        try (Database database = Database.open(options)) {
            System.out.println("PostgreSQL: " + database.description);
            try (Connection c = database.dataSource.getConnection()) {
                CounterCacheLiquibase.update(c, "db/changelog/db.changelog-master.xml");
            }
            System.out.println("Changelog applied (blog tables, countercache schema, triggers, counters).");
            if (migrateOnly) {
                return 0;
            }
            int threads = Integer.parseInt(options.getOrDefault("--threads", "4"));
            int transactions = Integer.parseInt(options.getOrDefault("--transactions", "6000"));
            boolean exact = runWorkload(database.dataSource, threads, transactions);
            System.out.printf(Locale.ROOT, "Wall time: %.1f s%n", (System.nanoTime() - started) / 1e9);
            if (!exact) {
                System.out.println("FAILED: some counters differ from their recount.");
                return 1;
            }
            System.out.println("OK: every counter equals its recount.");
            return 0;
        }
    }

    private static boolean runWorkload(HikariDataSource dataSource, int threads, int transactions) throws Exception {
        EntityManagerFactory emf = new HibernatePersistenceConfiguration("blog")
                .managedClasses(User.class, Article.class, Comment.class)
                .property("hibernate.connection.datasource", dataSource)
                .property("hibernate.hbm2ddl.auto", "validate")
                .createEntityManagerFactory();
        List<RollupWorker> workers = List.of(
                RollupWorker.builder(dataSource).name("rollup-1").batchSize(2000).pollInterval(Duration.ofMillis(50)).build(),
                RollupWorker.builder(dataSource).name("rollup-2").batchSize(2000).pollInterval(Duration.ofMillis(50)).build());
        try {
            Workload workload = new Workload(emf, dataSource);
            workload.seed(50, 200);
            workers.forEach(RollupWorker::start);
            workload.runConcurrently(threads, transactions);
            workload.runPlainSql();
            workers.forEach(RollupWorker::close);
            RollupWorker drainer = RollupWorker.builder(dataSource).name("drain").batchSize(10_000).build();
            long drained = drainer.drain();
            long applied = drained + workers.stream().mapToLong(RollupWorker::appliedDeltas).sum();
            System.out.printf(Locale.ROOT, "Rollup: %,d deltas consumed (%,d by the workers while writers ran, %,d in the"
                    + " final drain); %,d left in the queue%n", applied, applied - drained, drained, queued(dataSource));
            return Report.print(emf, dataSource);
        } finally {
            workers.forEach(RollupWorker::close);
            emf.close();
        }
    }

    static long queued(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM countercache.delta")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void usage(String problem) {
        if (problem != null) {
            System.err.println(problem);
        }
        System.err.println("usage: java -jar countercache-example.jar [migrate] [--jdbc-url URL --username U --password P]"
                + " [--threads N] [--transactions N]");
        System.exit(problem == null ? 0 : 2);
    }

    /** The database: the one named on the command line, or an embedded PostgreSQL started for this run. */
    private static final class Database implements Closeable {
        final HikariDataSource dataSource;
        final String description;
        private final EmbeddedPostgres embedded;

        private Database(HikariDataSource dataSource, String description, EmbeddedPostgres embedded) {
            this.dataSource = dataSource;
            this.description = description;
            this.embedded = embedded;
        }

        static Database open(Map<String, String> options) throws IOException {
            HikariConfig config = new HikariConfig();
            config.setPoolName("blog");
            config.setMaximumPoolSize(12);
            EmbeddedPostgres embedded = null;
            String description;
            if (options.containsKey("--jdbc-url")) {
                config.setJdbcUrl(options.get("--jdbc-url"));
                config.setUsername(options.getOrDefault("--username", System.getProperty("user.name")));
                config.setPassword(options.getOrDefault("--password", ""));
                description = options.get("--jdbc-url");
            } else {
                System.out.println("Starting embedded PostgreSQL...");
                embedded = EmbeddedPostgres.builder().start();
                config.setJdbcUrl(embedded.getJdbcUrl("postgres", "postgres"));
                config.setUsername("postgres");
                config.setPassword("postgres");
                description = "embedded, port " + embedded.getPort();
            }
            HikariDataSource ds = new HikariDataSource(config);
            try (Connection c = ds.getConnection()) {
                description += " (PostgreSQL " + c.getMetaData().getDatabaseProductVersion() + ")";
            } catch (SQLException e) {
                ds.close();
                throw new IllegalStateException("cannot connect to " + description + ": " + e.getMessage(), e);
            }
            return new Database(ds, description, embedded);
        }

        @Override
        public void close() throws IOException {
            dataSource.close();
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
