package io.countercache.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** A database of its own for one test class, with a few plain JDBC helpers. */
public record TestDatabase(String name, String jdbcUrl, String user, String password, DataSource dataSource) {

    /** Runs SQL text (one or more statements) in auto-commit mode. */
    public void execute(String sql) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage() + "\nwhile running: " + sql, e);
        }
    }

    /** Runs SQL text in one transaction, as Liquibase runs a changeset. */
    public void executeInTransaction(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            try {
                st.execute(sql);
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** The first column of the first row, as a long (0 for NULL). */
    public long queryLong(String sql) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                throw new IllegalStateException("no row from: " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage() + "\nwhile running: " + sql, e);
        }
    }

    /** Every row, each as a list of its column values rendered as strings. */
    public List<List<String>> queryRows(String sql) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            return rows(rs);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage() + "\nwhile running: " + sql, e);
        }
    }

    /** The rows of a result, each as a list of its column values rendered as strings. */
    static List<List<String>> rows(ResultSet rs) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        return rows;
    }
}
