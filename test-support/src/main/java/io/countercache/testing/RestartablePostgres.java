package io.countercache.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A PostgreSQL server of a test's own (embedded, whatever {@link TestPostgres} uses for the rest) that the test can
 * stop and start again on the same data directory and port: a real server restart, for fault tests.
 */
public final class RestartablePostgres implements AutoCloseable {

    private final Path dataDirectory;
    private final int port;
    private EmbeddedPostgres server;

    private RestartablePostgres(Path dataDirectory, int port) {
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    /** Starts a fresh server in a new temporary data directory. */
    public static RestartablePostgres start() {
        try {
            RestartablePostgres pg = new RestartablePostgres(Files.createTempDirectory("countercache-restart"), 0);
            pg.server = pg.builder().start();
            RestartablePostgres fixed = new RestartablePostgres(pg.dataDirectory, pg.server.getPort());
            fixed.server = pg.server;
            return fixed;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    private EmbeddedPostgres.Builder builder() {
        // not "clean": that would delete the data directory when the server stops
        // synchronous_commit on: a commit the client saw survives an immediate stop (the embedded default is off)
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder().setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false).setServerConfig("fsync", "off").setServerConfig("synchronous_commit", "on");
        return port == 0 ? b : b.setPort(port);
    }

    /** The JDBC URL of the {@code postgres} database, the same across restarts. */
    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    /** Connections to the {@code postgres} database; each call opens a new one, so they survive a restart. */
    public DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(jdbcUrl());
        ds.setUser("postgres");
        ds.setPassword("postgres");
        return ds;
    }

    /** Stops the server (fast shutdown: sessions are terminated, open transactions roll back). */
    public synchronized void stop() {
        try {
            server.close();
            server = null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stop embedded PostgreSQL", e);
        }
    }

    /**
     * Stops the server as a crash would: an immediate shutdown (SIGQUIT to the postmaster), no checkpoint, sessions
     * cut off mid-statement. The next start runs crash recovery, which empties every unlogged table.
     */
    public synchronized void immediateStop() {
        try {
            long pid = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
            ProcessHandle postmaster = ProcessHandle.of(pid)
                    .orElseThrow(() -> new IllegalStateException("no postmaster with pid " + pid));
            Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -QUIT " + pid + " failed");
            }
            postmaster.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
            try {
                server.close();   // finds no server to stop, and releases the data directory's lock
            } catch (IOException | RuntimeException e) {
                // expected: the server is already gone
            }
            server = null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stop embedded PostgreSQL", e);
        } catch (Exception e) {
            throw new IllegalStateException("immediate stop of embedded PostgreSQL failed", e);
        }
    }

    /** Starts the stopped server again on the same data directory and port. */
    public synchronized void restart() {
        try {
            server = builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restart embedded PostgreSQL", e);
        }
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public synchronized void close() {
        if (server != null) {
            stop();
        }
        try (var paths = Files.walk(dataDirectory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dataDirectory, e);
        }
    }
}
