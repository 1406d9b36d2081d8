package io.countercache.cli;

import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/** The connection options every command that talks to a database shares; defaults come from the environment. */
final class Database {

    @Option(names = "--jdbc-url", paramLabel = "URL", defaultValue = "${env:COUNTERCACHE_JDBC_URL}",
            description = "jdbc:postgresql://host:port/database (default: $COUNTERCACHE_JDBC_URL)")
    String url;

    @Option(names = "--username", paramLabel = "USER", defaultValue = "${env:COUNTERCACHE_USERNAME:-${env:PGUSER}}",
            description = "default: $COUNTERCACHE_USERNAME, else $PGUSER")
    String username;

    @Option(names = "--password", paramLabel = "PASSWORD", defaultValue = "${env:COUNTERCACHE_PASSWORD:-${env:PGPASSWORD}}",
            description = "default: $COUNTERCACHE_PASSWORD, else $PGPASSWORD (prefer them, or ~/.pgpass: a value here"
                    + " shows in the process list)")
    String password;

    /** An auto-commit connection, or an error that says what to fix (no stack trace for an expected failure). */
    Connection connect() {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("no database: give --jdbc-url or set COUNTERCACHE_JDBC_URL");
        }
        Properties p = new Properties();
        if (username != null) {
            p.setProperty("user", username);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        try {
            p.setProperty("options", "-c search_path=pg_catalog,pg_temp");   // nothing planted resolves first
            Connection c = DriverManager.getConnection(url, p);
            try (var st = c.createStatement();
                 var rs = st.executeQuery("SELECT pg_catalog.to_regprocedure('countercache.installed_version()') IS NOT NULL")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    c.close();
                    throw new IllegalArgumentException("countercache is not installed in " + shown(url)
                            + ": apply the countercache changelog first");
                }
            }
            return c;
        } catch (SQLException e) {
            throw new IllegalArgumentException("cannot connect to " + shown(url) + ": " + shown(e.getMessage()), e);
        }
    }

    /** A URL, or a message that quotes one, as it may be shown: a password among its parameters is masked. */
    static String shown(String text) {
        return String.valueOf(text).replaceAll("(?i)([?&](ssl)?password=)[^&\\s]*", "$1***");
    }

    /** The installed counters (id, name), all or the one named; an unknown name is an error that lists them. */
    static List<Object[]> counters(Connection c, String only) throws SQLException {
        List<Object[]> all = new ArrayList<>();
        try (var st = c.createStatement();
             var rs = st.executeQuery("SELECT k.id, k.name FROM countercache.counters() k")) {
            while (rs.next()) {
                all.add(new Object[]{rs.getInt(1), rs.getString(2)});
            }
        }
        if (only == null) {
            return all;
        }
        List<Object[]> one = all.stream().filter(r -> r[1].equals(only)).toList();
        if (one.isEmpty()) {
            throw new IllegalArgumentException("no counter named " + only + "; the counters are "
                    + all.stream().map(r -> (String) r[1]).toList());
        }
        return one;
    }
}
