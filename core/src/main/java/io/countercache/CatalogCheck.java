package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.LimitDefinition;
import io.countercache.internal.InstallSql;
import io.countercache.spi.TableName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares declared counters with what a database has installed: the catalog rows, the counter columns and the capture
 * triggers. An empty list means the database counts exactly what the code declares.
 */
public final class CatalogCheck {

    private CatalogCheck() {
    }

    private record Installed(String name, String declaredBy, TableName target, String targetKey, String keyType,
                             TableName source, String sourceFk, String condition, String sumColumn,
                             String hash, String strategy, String via) {
    }

    /**
     * Every difference, one line each, naming the counter ({@code Entity.field}) and what differs.
     *
     * @param owned tables whose installed counters must all be declared (the tables of the declaring persistence
     *              unit); counters on other tables belong to someone else and are not reported
     */
    public static List<String> differences(Connection c, Collection<CounterDefinition> declared, Collection<TableName> owned)
            throws SQLException {
        List<String> problems = new ArrayList<>();
        if (!installed(c)) {
            problems.add("countercache is not installed in this database (there is no countercache schema)");
            return problems;
        }
        String schema = schemaProblem(c);
        if (schema != null) {
            problems.add(schema);
        }
        Map<Integer, Installed> catalog = catalog(c);
        for (CounterDefinition d : declared) {
            Installed i = catalog.remove(d.id());
            if (i == null) {
                problems.add(d.declaredBy() + ": not installed (the catalog has no counter " + d.name() + ")");
                continue;
            }
            if (!i.hash().equals(d.definitionHash())) {
                problems.add(d.declaredBy() + ": " + changes(d, i));
            }
        }
        java.util.Set<String> names = new java.util.HashSet<>(declared.stream().map(CounterDefinition::name).toList());
        // everything else the database can tell on its own (a column retyped, a trigger missing): the one checker
        try (PreparedStatement ps = c.prepareStatement("SELECT p.counter, p.problem FROM countercache.installed_problems() p");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (names.contains(rs.getString(1))) {
                    problems.add(rs.getString(2));
                }
            }
        }
        for (Installed i : catalog.values()) {
            if (owned.contains(i.target())) {
                problems.add(i.declaredBy() + ": installed as " + i.name() + " but no longer declared; its triggers"
                        + " still queue deltas");
            }
        }
        return problems;
    }

    /**
     * Every difference between declared limit counters and the database's: missing, or defined otherwise (period,
     * limit, time zone, retention). Run after {@link #differences}, which reports a missing installation.
     */
    public static List<String> limitDifferences(Connection c, Collection<LimitDefinition> declared) throws SQLException {
        List<String> problems = new ArrayList<>();
        if (declared.isEmpty() || !installed(c)) {
            return problems;
        }
        // the periods as written: interval's = takes "1 month" for "30 days"
        try (PreparedStatement ps = c.prepareStatement("SELECT l.period::pg_catalog.text OPERATOR(pg_catalog.=)"
                + " ?::pg_catalog.interval::pg_catalog.text, l.default_limit, l.time_zone, l.retention, l.period::pg_catalog.text FROM countercache.limits() l"
                + " WHERE l.name OPERATOR(pg_catalog.=) ?")) {
            for (LimitDefinition d : declared) {
                ps.setString(1, d.period());
                ps.setString(2, d.name());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        problems.add(d.declaredBy() + ": not installed (the catalog has no limit " + d.name() + ")");
                        continue;
                    }
                    List<String> changes = new ArrayList<>();
                    if (!rs.getBoolean(1)) {
                        changes.add("period is \"" + d.period() + "\" in the code but \"" + rs.getString(5) + "\" in the database");
                    }
                    if (rs.getLong(2) != d.defaultLimit()) {
                        changes.add("limit is " + d.defaultLimit() + " in the code but " + rs.getLong(2) + " in the database");
                    }
                    compare(changes, "time zone", d.timeZone(), rs.getString(3));
                    if (rs.getInt(4) != d.retention()) {
                        changes.add("retention is " + d.retention() + " in the code but " + rs.getInt(4) + " in the database");
                    }
                    if (!changes.isEmpty()) {
                        problems.add(d.declaredBy() + ": " + String.join("; ", changes));
                    }
                }
            }
        }
        return problems;
    }

    private static String changes(CounterDefinition d, Installed i) {
        List<String> changes = new ArrayList<>();
        compare(changes, "where", d.condition(), i.condition());
        compare(changes, "sum", d.sumColumn(), i.sumColumn());
        compare(changes, "source table", d.source().toString(), i.source().toString());
        compare(changes, "foreign key column", d.sourceFk(), i.sourceFk());
        compare(changes, "target key", d.targetKey(), i.targetKey());
        compare(changes, "key type", d.keyType().sqlName(), i.keyType());
        compare(changes, "strategy", d.strategy().sqlName(), i.strategy());
        compare(changes, "path", d.via() == null ? null : d.via().table() + "." + d.via().fk(), i.via());
        return changes.isEmpty() ? "the installed definition differs (hash " + i.hash() + ", declared "
                + d.definitionHash() + "): its sum, min, max, distinct, slots, touch or associations changed; apply the"
                + " changelog generated from this code" : String.join("; ", changes);
    }

    private static void compare(List<String> changes, String what, String declared, String installed) {
        if (!Objects.equals(declared, installed)) {
            changes.add(what + " is " + quoted(declared) + " in the entity but " + quoted(installed) + " in the database");
        }
    }

    private static String quoted(String s) {
        return s == null ? "(none)" : "\"" + s + "\"";
    }

    private static boolean installed(Connection c) throws SQLException {
        return (Boolean) single(c, "SELECT pg_catalog.to_regprocedure('countercache.installed_version()') IS NOT NULL");
    }

    /**
     * Why the installed schema is not this library's, or null when it is: a newer version (never downgraded), an
     * older one, or the same version with other functions.
     */
    private static String schemaProblem(Connection c) throws SQLException {
        if (!(Boolean) single(c, "SELECT pg_catalog.to_regprocedure('countercache.installed_version()') IS NOT NULL")) {
            return "the countercache schema in the database is from an older release (before schema versions), this"
                    + " library's is version " + InstallSql.schemaVersion() + ": apply this library's countercache changelog";
        }
        int version = ((Number) single(c, "SELECT countercache.installed_version()")).intValue();
        if (version > InstallSql.schemaVersion()) {
            return "the countercache schema in the database is version " + version + ", newer than this library's "
                    + InstallSql.schemaVersion() + ": use the countercache library that installed it (or a newer one);"
                    + " a schema is never downgraded";
        }
        String digest = (String) single(c, "SELECT countercache.schema_digest()");
        if (version < InstallSql.schemaVersion() || !InstallSql.schemaDigest().equals(digest)) {
            return "the countercache schema in the database is version " + version + " (functions " + digest
                    + "), this library's is version " + InstallSql.schemaVersion() + " (functions "
                    + InstallSql.schemaDigest() + "): apply this library's countercache changelog";
        }
        return null;
    }

    /** The one value of a one-row, one-column query, with text parameters bound in order. */
    private static Object single(Connection c, String sql, String... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1);
            }
        }
    }

    private static Map<Integer, Installed> catalog(Connection c) throws SQLException {
        Map<Integer, Installed> rows = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT k.id, k.name, k.declared_by, k.target_schema,"
                + " k.target_table, k.target_key, k.key_type, k.source_schema, k.source_table,"
                + " k.source_fk, k.condition, k.sum_column, k.definition_hash, k.strategy,"
                + " k.via_schema || '.' || k.via_table || '.' || k.via_fk FROM countercache.counters() k");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.put(rs.getInt(1), new Installed(rs.getString(2), rs.getString(3),
                        new TableName(rs.getString(4), rs.getString(5)), rs.getString(6), rs.getString(7),
                        new TableName(rs.getString(8), rs.getString(9)), rs.getString(10),
                        rs.getString(11), rs.getString(12), rs.getString(13), rs.getString(14), rs.getString(15)));
            }
        }
        return rows;
    }
}
