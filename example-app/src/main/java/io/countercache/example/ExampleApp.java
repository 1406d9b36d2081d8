package io.countercache.example;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.countercache.RollupWorker;
import io.countercache.hibernate.CounterCacheSettings;
import io.countercache.hibernate.CounterCaches;
import io.countercache.liquibase.CounterCacheLiquibase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

import javax.sql.DataSource;
import java.io.Closeable;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
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
        // Two rollup workers run inside the application, on Hibernate's connections, for the SessionFactory's life.
        EntityManagerFactory emf = new HibernatePersistenceConfiguration("blog")
                .managedClasses(User.class, Blog.class, Article.class, Comment.class, ArticleDay.class)
                .property("hibernate.connection.datasource", dataSource)
                .property("hibernate.hbm2ddl.auto", "validate")
                .property(CounterCacheSettings.WORKER_ENABLED, "true")
                .property(CounterCacheSettings.WORKER_THREADS, "2")
                .property(CounterCacheSettings.WORKER_BATCH_SIZE, "2000")
                .property(CounterCacheSettings.WORKER_POLL_INTERVAL, "50")
                .createEntityManagerFactory();
        try {
            Workload workload = new Workload(emf, dataSource);
            workload.seed(50, 200);
            workload.runConcurrently(threads, transactions);
            workload.runPlainSql();
            long pending = queued(dataSource);
            Map<Long, Long> exact = exactPublicComments(emf);
            long drained = drainCompletely(dataSource);
            List<RollupWorker> workers = CounterCaches.workers(emf);
            long byWorkers = workers.stream().mapToLong(RollupWorker::appliedDeltas).sum();
            System.out.printf(Locale.ROOT, "Rollup: the in-process workers applied %,d deltas and the final drain %,d"
                    + " (%,d were queued when the writers stopped); %,d left in the queue; %d failed rounds%n",
                    byWorkers, drained, pending, queued(dataSource),
                    workers.stream().mapToLong(RollupWorker::failures).sum());
            long agreeing = exactAgreesAfterDrain(emf, exact);
            System.out.printf(Locale.ROOT, "Exact reads taken before the drain agree with the drained columns for %d of"
                    + " %d articles%n", agreeing, exact.size());
            return Report.print(emf, dataSource) && agreeing == exact.size();
        } finally {
            emf.close();
        }
    }

    /**
     * Rolls up until the queue is empty. A drain skips deltas that a worker's round has claimed and not committed yet,
     * so it is repeated until those rounds have committed too.
     */
    private static long drainCompletely(DataSource dataSource) throws SQLException, InterruptedException {
        RollupWorker drainer = RollupWorker.builder(dataSource).name("drain").build();
        long drained = drainer.drain();
        while (queued(dataSource) > 0) {
            Thread.sleep(20);
            drained += drainer.drain();
        }
        return drained;
    }

    /** Every article's public-comment count, column plus pending deltas, in one query. */
    private static Map<Long, Long> exactPublicComments(EntityManagerFactory emf) {
        try (EntityManager em = emf.createEntityManager()) {
            List<Long> ids = em.createQuery("SELECT a.id FROM Article a", Long.class).getResultList();
            return CounterCaches.exact(em, Article.class, "totalPublicComments", ids);
        }
    }

    private static long exactAgreesAfterDrain(EntityManagerFactory emf, Map<Long, Long> exact) {
        try (EntityManager em = emf.createEntityManager()) {
            return em.createQuery("SELECT a FROM Article a", Article.class).getResultList().stream()
                    .filter(a -> Objects.equals(exact.get(a.id), a.totalPublicComments)).count();
        }
    }

    static long queued(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT q.depth FROM countercache.queue_state() q")) {
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
