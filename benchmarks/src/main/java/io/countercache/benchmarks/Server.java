package io.countercache.benchmarks;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.Closeable;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/** The PostgreSQL the suite runs on (embedded, or one given by URL), and a fresh database per measurement. */
final class Server implements Closeable {

    private final String baseUrl;       // jdbc:postgresql://host:port/
    private final String adminDatabase;
    private final String user;
    private final String password;
    private final EmbeddedPostgres embedded;
    private final AtomicInteger counter = new AtomicInteger();

    private Server(String baseUrl, String adminDatabase, String user, String password, EmbeddedPostgres embedded) {
        this.baseUrl = baseUrl;
        this.adminDatabase = adminDatabase;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
    }

    /** The settings a run measures under. */
    enum Profile {
        /** PostgreSQL's defaults: every commit waits for its WAL to reach the disk, as production runs. */
        DURABLE("durable", "benchmarks.md", "Durable profile: PostgreSQL's default `fsync` and `synchronous_commit`"
                + " (on), what users run; a commit waits for the disk, so it shows what a write costs in practice."),
        /** fsync and synchronous_commit off: nothing waits for the disk, so the CPU cost of each statement shows. */
        CPU_BOUND("CPU-bound", "benchmarks-cpu.md", "CPU-bound profile: `fsync` and `synchronous_commit` off, so"
                + " nothing waits for the disk and each statement's CPU cost shows (a commit costs microseconds)."),
        /** A server of the user's own (--jdbc-url): its settings, whatever they are. */
        EXTERNAL("external", "benchmarks.md", "A server given by --jdbc-url, with its own settings.");

        private final String label;
        private final String file;
        private final String description;

        Profile(String label, String file, String description) {
            this.label = label;
            this.file = file;
            this.description = description;
        }

        String label() {
            return label;
        }

        String file() {
            return file;
        }

        String description() {
            return description;
        }
    }

    /** An embedded server in this profile (the embedded default, durability off, is overridden either way). */
    static Server embedded(Profile profile) throws IOException {
        String durable = profile == Profile.CPU_BOUND ? "off" : "on";
        EmbeddedPostgres pg = EmbeddedPostgres.builder().setServerConfig("max_connections", "100")
                .setServerConfig("fsync", durable).setServerConfig("synchronous_commit", durable).start();
        return new Server("jdbc:postgresql://localhost:" + pg.getPort() + "/", "postgres", "postgres", "postgres", pg);
    }

    static Server at(String jdbcUrl, String user, String password) {
        int slash = jdbcUrl.indexOf('/', "jdbc:postgresql://".length());
        return new Server(jdbcUrl.substring(0, slash + 1), jdbcUrl.substring(slash + 1), user, password, null);
    }

    /** A database of its own: created empty, dropped by {@link Db#close()}. */
    Db newDatabase(String label) throws SQLException {
        String name = "bench_" + label.replace('-', '_') + "_" + counter.incrementAndGet();
        try (Connection c = admin(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name);
            st.execute("CREATE DATABASE " + name);
        }
        return new Db(name);
    }

    Connection admin() throws SQLException {
        return DriverManager.getConnection(baseUrl + adminDatabase, user, password);
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }

    final class Db implements AutoCloseable {
        final String name;

        Db(String name) {
            this.name = name;
        }

        Connection connect() throws SQLException {
            return DriverManager.getConnection(baseUrl + name, user, password);
        }

        org.postgresql.ds.PGSimpleDataSource dataSource() {
            var ds = new org.postgresql.ds.PGSimpleDataSource();
            ds.setUrl(baseUrl + name);
            ds.setUser(user);
            ds.setPassword(password);
            return ds;
        }

        long queryLong(String sql) throws SQLException {
            try (Connection c = connect(); Statement st = c.createStatement(); var rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        void execute(String sql) throws SQLException {
            try (Connection c = connect(); Statement st = c.createStatement()) {
                st.execute(sql);
            }
        }

        @Override
        public void close() throws SQLException {
            try (Connection c = admin(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        }
    }
}
