package io.countercache.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real PostgreSQL server per test JVM, and a fresh database per test class.
 *
 * <p>The server is, in this order: the one at {@code COUNTERCACHE_TEST_JDBC_URL} (user and password from
 * {@code COUNTERCACHE_TEST_USERNAME} / {@code COUNTERCACHE_TEST_PASSWORD}, default postgres/postgres); a Testcontainers
 * {@code postgres:<version>} when a Docker engine answers; else an embedded PostgreSQL from Maven Central (zonky).
 * The major version of the last two is {@code -Dpg.version} (15 to 18, default 18).
 */
public final class TestPostgres {

    private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
    private static final AtomicInteger databases = new AtomicInteger();
    /** Liquibase logs through java.util.logging; tests keep its warnings only. Held so the level is not collected. */
    private static final java.util.logging.Logger LIQUIBASE_LOG = java.util.logging.Logger.getLogger("liquibase");

    static {
        LIQUIBASE_LOG.setLevel(java.util.logging.Level.WARNING);
    }
    private static Server server;

    private TestPostgres() {
    }

    /** A server's address and superuser credentials. */
    public record Server(String host, int port, String user, String password, String description) {
        String url(String database) {
            return "jdbc:postgresql://" + host + ":" + port + "/" + database;
        }
    }

    /** The server of this JVM, started on first use and stopped when the JVM exits. */
    public static synchronized Server server() {
        if (server == null) {
            server = start();
            log.info("Tests use {}", server.description());
        }
        return server;
    }

    /** Creates an empty database named after the test class; each call gives a new one. */
    public static TestDatabase newDatabase(Class<?> testClass) {
        Server s = server();
        String name = ("cc_" + testClass.getSimpleName() + "_" + databases.incrementAndGet()).toLowerCase(Locale.ROOT);
        try (Connection c = DriverManager.getConnection(s.url("postgres"), s.user(), s.password());
             Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS \"" + name + "\"");
            st.execute("CREATE DATABASE \"" + name + "\" TEMPLATE template0");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + name + " on " + s.description(), e);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(s.url(name));
        ds.setUser(s.user());
        ds.setPassword(s.password());
        return new TestDatabase(name, s.url(name), s.user(), s.password(), ds);
    }

    private static Server start() {
        String url = System.getenv("COUNTERCACHE_TEST_JDBC_URL");
        String version = System.getProperty("pg.version", "18");
        if (url != null && !url.isBlank()) {
            return fromUrl(url);
        }
        if (dockerAvailable()) {
            PostgreSQLContainer pg = new PostgreSQLContainer("postgres:" + version)
                    .withCommand("postgres", "-c", "max_connections=200", "-c", "fsync=off");
            pg.start();
            Runtime.getRuntime().addShutdownHook(new Thread(pg::stop));
            return new Server(pg.getHost(), pg.getMappedPort(5432), pg.getUsername(), pg.getPassword(),
                    "Testcontainers postgres:" + version);
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "200")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    log.warn("embedded PostgreSQL did not stop cleanly", e);
                }
            }));
            Server s = new Server("localhost", pg.getPort(), "postgres", "postgres", "embedded PostgreSQL");
            String actual = serverVersion(s);
            if (!actual.startsWith(version + ".")) {
                throw new IllegalStateException("-Dpg.version=" + version + " but the embedded binaries are PostgreSQL "
                        + actual + "; run Maven with the same -Dpg.version so it picks the matching binaries");
            }
            return new Server(s.host(), s.port(), s.user(), s.password(), "embedded PostgreSQL " + actual);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    private static Server fromUrl(String url) {
        // jdbc:postgresql://host:port/db?...
        String rest = url.substring(url.indexOf("//") + 2);
        String hostPort = rest.substring(0, rest.indexOf('/') < 0 ? rest.length() : rest.indexOf('/'));
        String host = hostPort.contains(":") ? hostPort.substring(0, hostPort.indexOf(':')) : hostPort;
        int port = hostPort.contains(":") ? Integer.parseInt(hostPort.substring(hostPort.indexOf(':') + 1)) : 5432;
        String user = System.getenv().getOrDefault("COUNTERCACHE_TEST_USERNAME", "postgres");
        String password = System.getenv().getOrDefault("COUNTERCACHE_TEST_PASSWORD", "postgres");
        Server s = new Server(host, port, user, password, "PostgreSQL at " + host + ":" + port);
        return new Server(host, port, user, password, s.description() + " (" + serverVersion(s) + ")");
    }

    private static String serverVersion(Server s) {
        try (Connection c = DriverManager.getConnection(s.url("postgres"), s.user(), s.password())) {
            return c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + s.description(), e);
        }
    }

    private static boolean dockerAvailable() {
        if (System.getenv("DOCKER_HOST") == null && !Files.exists(Path.of("/var/run/docker.sock"))) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
