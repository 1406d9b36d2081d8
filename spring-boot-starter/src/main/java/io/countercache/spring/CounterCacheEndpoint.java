package io.countercache.spring;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code countercache} actuator endpoint. Reading it gives, per counter, what {@code countercache.status()}
 * says: strategy, deltas waiting and the age of the oldest, dead letters, orphans, whether a recount runs and how
 * many targets it has done, whether its triggers are in place. Writing to {@code countercache/{counter}} verifies
 * that counter: it compares the column, plus what is pending, with a recount of the source in one snapshot, and
 * returns the first rows that differ (none when it is exact). It reads only; a repair is the CLI's {@code repair}.
 */
@Endpoint(id = "countercache")
public class CounterCacheEndpoint {

    /** The rows of a verify that are returned at most. */
    static final int SAMPLE = 20;

    private final DataSource dataSource;

    public CounterCacheEndpoint(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @ReadOperation
    public List<Map<String, Object>> counters() throws SQLException {
        return query("SELECT s.name AS counter, s.declared_by AS \"declaredBy\", s.strategy, s.waiting AS pending,"
                + " s.oldest_seconds AS \"oldestPendingSeconds\", s.dead_letters AS \"deadLetters\", s.orphans,"
                + " s.recounting, s.recount_targets AS \"recountTargets\", s.triggers_ok AS \"triggersInstalled\""
                + " FROM countercache.status() s ORDER BY s.name");
    }

    /** Verifies one counter, named as {@code countercache.status()} names it ({@code public.blog_article.total_comments}). */
    @WriteOperation
    public Map<String, Object> verify(@Selector String counter) throws SQLException {
        List<Map<String, Object>> found = query("SELECT c.id FROM countercache.counters() c WHERE c.name = ?", counter);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("counter", counter);
        if (found.isEmpty()) {
            result.put("error", "no installed counter is named " + counter + "; GET /actuator/countercache lists them");
            return result;
        }
        List<Map<String, Object>> drift;
        long deadLetters;
        try {
            drift = query("SELECT d.key, d.stored, d.pending, d.exact FROM countercache.drift(?, ?) d",
                    found.get(0).get("id"), SAMPLE);
            // drift nets out the dead letters as pending: the column plus them is exact, the column alone is not
            deadLetters = ((Number) query("SELECT s.dead_letters FROM countercache.status() s WHERE s.name = ?",
                    counter).get(0).get("dead_letters")).longValue();
        } catch (SQLException e) {   // a role without the worker's grants (docs/security.md), say
            result.put("error", e.getMessage().lines().findFirst().orElse("") + " (SQLState " + e.getSQLState() + ")");
            return result;
        }
        result.put("exact", drift.isEmpty() && deadLetters == 0);
        result.put("deadLetters", deadLetters);
        result.put("drift", drift);
        return result;
    }

    private List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                List<Map<String, Object>> rows = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                    }
                    rows.add(row);
                }
                return rows;
            }
        }
    }
}
