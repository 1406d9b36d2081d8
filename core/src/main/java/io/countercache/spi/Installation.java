package io.countercache.spi;

import io.countercache.internal.InstallSql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The SQL that installs a set of counters, for an integration that delivers it (the Liquibase changelog writer, a
 * build plugin, a test): ordered units, each one transaction that can run again, or, for the last one, SQL that runs
 * on every update outside a transaction. The text is deterministic (sorted, no timestamps), so a regenerated file
 * diffs cleanly. What each unit does is described in {@code docs/architecture.md}.
 */
public final class Installation {

    /**
     * One transaction's worth of SQL, {@code id} stable across regenerations; or, when {@code everyTime} is set, SQL
     * that runs on every update and outside a transaction (it commits as it goes). {@code rollback} is one statement
     * that undoes it (dropping what it installed, so that applying it again starts over and recounts), or null when
     * there is nothing to undo.
     */
    public record Unit(String id, String description, String sql, boolean everyTime, String rollback) {
    }

    private Installation() {
    }

    /** The name of the changelog when none is given. */
    public static final String DEFAULT_CHANGELOG = "default";

    /** The units of the {@link #DEFAULT_CHANGELOG} that install exactly these counters. */
    public static List<Unit> units(List<CounterDefinition> counters) {
        return InstallSql.units(DEFAULT_CHANGELOG, counters, List.of());
    }

    /** The units of the {@link #DEFAULT_CHANGELOG} that install exactly these counters and limits. */
    public static List<Unit> units(List<CounterDefinition> counters, List<LimitDefinition> limits) {
        return InstallSql.units(DEFAULT_CHANGELOG, counters, limits);
    }

    /**
     * The units that install exactly these counters and limits for the changelog named {@code changelog}: they
     * remove the counters and limits that changelog installed before and no longer declares, and leave those of
     * other changelogs (other modules or services sharing the database) alone.
     */
    public static List<Unit> units(String changelog, List<CounterDefinition> counters, List<LimitDefinition> limits) {
        return InstallSql.units(changelog, counters, limits);
    }

    /**
     * Runs the units over JDBC as the Liquibase changelog runs them: each unit in a transaction of its own, an
     * {@code everyTime} unit in auto-commit mode. Leaves the connection in auto-commit mode.
     */
    public static void apply(Connection connection, List<Unit> units) throws SQLException {
        for (Unit unit : units) {
            try (Statement st = connection.createStatement()) {
                connection.setAutoCommit(unit.everyTime());
                try {
                    st.execute(unit.sql());
                    if (!unit.everyTime()) {
                        connection.commit();
                    }
                } catch (SQLException e) {
                    if (!unit.everyTime()) {
                        connection.rollback();
                    }
                    throw e;
                }
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    /** The version of the countercache schema this library installs ({@code countercache.installed_version()}). */
    public static int schemaVersion() {
        return InstallSql.schemaVersion();
    }
}
