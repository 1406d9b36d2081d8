package io.countercache.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Several database sessions driven step by step, for deterministic interleavings: each {@link Session} is one
 * connection with a thread of its own, so a test can start a statement that blocks, see that it waits for a lock,
 * release the lock from another session and then collect the result.
 *
 * <pre>{@code
 * try (Sessions s = new Sessions(db.dataSource())) {
 *     Session locker = s.open("locker"), rollup = s.open("rollup");
 *     locker.run("BEGIN; SELECT 1 FROM article WHERE id = 1 FOR UPDATE");
 *     rollup.run("SELECT countercache.rollup(100)");      // fails the test if it waits for a lock
 *     Step late = rollup.start("UPDATE article SET title = 'x' WHERE id = 1");
 *     s.awaitWaiting(rollup);                             // it waits for the locker...
 *     locker.run("COMMIT");
 *     late.await();                                        // ...and goes on once the locker commits
 * }
 * }</pre>
 */
public final class Sessions implements AutoCloseable {

    private static final Duration STEP_LIMIT = Duration.ofSeconds(20);

    private final DataSource dataSource;
    private final Connection monitor;
    private final List<Session> sessions = new ArrayList<>();

    public Sessions(DataSource dataSource) throws SQLException {
        this.dataSource = dataSource;
        this.monitor = dataSource.getConnection();
    }

    /** A new session in auto-commit mode; send {@code BEGIN} to open a transaction. */
    public Session open(String name) throws SQLException {
        Session s = new Session(name, dataSource.getConnection());
        sessions.add(s);
        return s;
    }

    /** Waits until the session's statement waits for a lock; fails if it finishes or does not wait in time. */
    public void awaitWaiting(Session s) throws Exception {
        long deadline = System.nanoTime() + STEP_LIMIT.toNanos();
        while (!waiting(s)) {
            if (s.current != null && s.current.isDone()) {
                throw new AssertionError(s.name + " finished instead of waiting for a lock");
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(s.name + " did not wait for a lock within " + STEP_LIMIT);
            }
            Thread.sleep(5);
        }
    }

    /** Whether the session's backend waits for a heavyweight lock (a row, a transaction, a table) now. */
    public boolean waiting(Session s) throws SQLException {
        try (Statement st = monitor.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + s.pid
                     + " AND wait_event_type = 'Lock'")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    @Override
    public void close() throws SQLException {
        for (Session s : sessions) {
            s.close();
        }
        monitor.close();
    }

    /** One connection and the thread that runs its statements in order. */
    public final class Session {
        private final String name;
        private final Connection connection;
        private final int pid;
        private final ExecutorService thread;
        private volatile Future<List<List<String>>> current;

        private Session(String name, Connection connection) throws SQLException {
            this.name = name;
            this.connection = connection;
            this.thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "session-" + name));
            try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                this.pid = rs.getInt(1);
            }
        }

        /** Starts SQL (one or more statements) on this session's thread and returns without waiting for it. */
        public Step start(String sql) {
            Future<List<List<String>>> f = thread.submit(() -> execute(sql));
            current = f;
            return new Step(this, sql, f);
        }

        /**
         * Runs SQL and returns the rows of its last result. Fails the test, naming the session and the statement, if
         * the statement waits for a lock: a step that is expected to wait must use {@link #start} instead.
         */
        public List<List<String>> run(String sql) throws Exception {
            Step step = start(sql);
            long deadline = System.nanoTime() + STEP_LIMIT.toNanos();
            while (true) {
                try {
                    return step.future.get(20, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (waiting(this)) {
                        throw new AssertionError(name + " waits for a lock at: " + sql);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(name + " did not finish within " + STEP_LIMIT + ": " + sql);
                    }
                } catch (ExecutionException e) {
                    throw unwrap(e);
                }
            }
        }

        /** The first column of the first row of {@link #run}, as a long. */
        public long queryLong(String sql) throws Exception {
            return Long.parseLong(run(sql).get(0).get(0));
        }

        /** The session's backend process id. */
        public int pid() {
            return pid;
        }

        public String name() {
            return name;
        }

        private List<List<String>> execute(String sql) throws SQLException {
            List<List<String>> rows = new ArrayList<>();
            try (Statement st = connection.createStatement()) {
                boolean isResult = st.execute(sql);
                while (true) {
                    if (isResult) {
                        try (ResultSet rs = st.getResultSet()) {
                            rows = TestDatabase.rows(rs);
                        }
                    } else if (st.getUpdateCount() == -1) {
                        return rows;
                    }
                    isResult = st.getMoreResults();
                }
            }
        }

        private void close() throws SQLException {
            thread.shutdownNow();
            connection.close();
        }
    }

    /** A statement started with {@link Session#start}. */
    public static final class Step {
        private final Session session;
        private final String sql;
        private final Future<List<List<String>>> future;

        private Step(Session session, String sql, Future<List<List<String>>> future) {
            this.session = session;
            this.sql = sql;
            this.future = future;
        }

        /** Waits for the statement to end and returns the rows of its last result, or throws its error. */
        public List<List<String>> await() throws Exception {
            try {
                return future.get(STEP_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError(session.name + " did not finish within " + STEP_LIMIT + ": " + sql);
            } catch (ExecutionException e) {
                throw unwrap(e);
            }
        }

        public boolean isDone() {
            return future.isDone();
        }
    }

    private static Exception unwrap(ExecutionException e) {
        return e.getCause() instanceof Exception cause ? cause : e;
    }
}
