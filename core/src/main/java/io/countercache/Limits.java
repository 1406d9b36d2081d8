package io.countercache;

import io.countercache.internal.LimitMeters;
import io.countercache.spi.OptionalDependencies;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/**
 * Asks a limit counter ({@link CounterLimit}) for an admission. In the caller's transaction: a rollback takes the
 * admission, and the attempt, back. One row lock per limit, key and period; different keys never wait for each other.
 */
public final class Limits {

    private static final String ADMIT = "SELECT a.admitted, a.admitted_count, a.attempted_count, a.max_admits,"
            + " a.period_start FROM countercache.admit_report(?, ?) a";

    /**
     * The answer to one request.
     *
     * @param admitted       whether it was admitted
     * @param admittedCount  the key's admissions in this period, this one included
     * @param attemptedCount the key's attempts in this period, this one included
     * @param limit          the limit it was judged against
     * @param periodStart    when the period began
     */
    public record Admission(boolean admitted, long admittedCount, long attemptedCount, long limit, Instant periodStart) {
    }

    private Limits() {
    }

    /**
     * Admits one request of {@code key} (a {@code String}, a {@code Number} or a {@code UUID}; stored as text) if its
     * count in the current period is below the limit in force, on the caller's connection and in its transaction.
     *
     * @throws CounterCacheException for an unknown limit name (the message lists the defined ones) or a null key
     */
    public static Admission admit(Connection connection, String limit, Object key) {
        try (PreparedStatement ps = connection.prepareStatement(ADMIT)) {
            ps.setString(1, limit);
            ps.setString(2, keyText(key));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Admission a = new Admission(rs.getBoolean(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                        rs.getTimestamp(5).toInstant());
                if (OptionalDependencies.MICROMETER) {   // admissions are counted
                    LimitMeters.record(limit, a.admitted());
                }
                return a;
            }
        } catch (SQLException e) {
            String hint = e instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null
                    ? p.getServerErrorMessage().getHint() : null;
            throw new CounterCacheException("countercache: admit(" + limit + ", " + key + ") failed: "
                    + e.getMessage().lines().findFirst().orElse("") + (hint == null ? "" : "; " + hint)
                    + " (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** As {@link #admit(Connection, String, Object)}, in a transaction of its own on a connection of the pool. */
    public static Admission admit(DataSource dataSource, String limit, Object key) {
        try (Connection c = dataSource.getConnection()) {
            Admission a = admit(c, limit, key);
            if (!c.getAutoCommit()) {   // a pool that hands out connections in a transaction would roll it back
                c.commit();
            }
            return a;
        } catch (SQLException e) {
            throw new CounterCacheException("countercache: admit(" + limit + ", " + key + "): no connection ("
                    + e.getMessage() + ")", e);
        }
    }

    private static String keyText(Object key) {
        if (key instanceof String || key instanceof Number || key instanceof UUID) {
            return key.toString();
        }
        throw new CounterCacheException("countercache: a limit key must be a String, a Number or a UUID, got "
                + (key == null ? "null" : key.getClass().getName()));
    }
}
