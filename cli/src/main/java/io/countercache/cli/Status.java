package io.countercache.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Per counter: what is queued, how old, what is dead-lettered, whether a recount runs, and its triggers; then every
 * problem of an installed counter with the database as it is now (a counted column renamed, say) and every counter
 * with dead letters: exit 1 if any.
 * Event triggers of the DDL guard not in place are warnings, which leave the exit code as it is.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show each counter's queue, dead letters, recount and triggers, and problems: dead letters, and"
                + " counters the schema no longer fits (exit 1).")
final class Status implements Callable<Integer> {

    @Mixin
    Database database;

    @Option(names = "--json", description = "One JSON object per counter, one per line.")
    boolean json;

    private static final String STATUS = "SELECT s.name, s.declared_by, s.waiting, s.oldest_seconds, s.dead_letters,"
            + " s.recounting, s.triggers_ok FROM countercache.status() s";

    /** Counters with dead letters, which stay out of their columns, then what the schema no longer fits. */
    private static final String PROBLEMS = "SELECT s.name, s.dead_letters || ' sums of ' || s.name || ' are in the dead"
            + " letters, refused by their target rows, and stay out of the column', 'fix the cause (the dead letter"
            + " table of the countercache schema holds each error), then repair the counter'"
            + " FROM countercache.status() s WHERE s.dead_letters OPERATOR(pg_catalog.>) 0"
            + " UNION ALL SELECT p.counter, p.problem, p.fix FROM countercache.installed_problems() p";

    @Override
    public Integer call() throws Exception {
        try (Connection c = database.connect(); PreparedStatement ps = c.prepareStatement(STATUS)) {
            List<String> lines = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                if (!json) {
                    lines.add(String.format(Locale.ROOT, "%-45s %9s %10s %8s %9s %s", "counter", "pending", "oldest s",
                            "dead", "recount", "triggers"));
                }
                while (rs.next()) {
                    String triggers = rs.getBoolean(7) ? "installed" : "not all in place (see the problems below)";
                    lines.add(json ? String.format(Locale.ROOT, "{\"counter\":\"%s\",\"declaredBy\":\"%s\",\"pending\":%d,"
                                    + "\"oldestSeconds\":%.3f,\"deadLetters\":%d,\"recounting\":%b,\"triggers\":\"%s\"}",
                            escape(rs.getString(1)), escape(rs.getString(2)), rs.getLong(3), rs.getDouble(4),
                            rs.getLong(5), rs.getBoolean(6), escape(triggers))
                            : String.format(Locale.ROOT, "%-45s %9d %10.1f %8d %9s %s", rs.getString(1), rs.getLong(3),
                            rs.getDouble(4), rs.getLong(5), rs.getBoolean(6) ? "running" : "-", triggers));
                }
            }
            int problems = 0;
            try (ResultSet rs = c.createStatement().executeQuery(PROBLEMS)) {
                while (rs.next()) {
                    problems++;
                    lines.add(json ? String.format(Locale.ROOT, "{\"counter\":\"%s\",\"problem\":\"%s\",\"fix\":\"%s\"}",
                            escape(rs.getString(1)), escape(rs.getString(2)), escape(rs.getString(3)))
                            : "problem: " + rs.getString(2) + "\n    fix: " + rs.getString(3));
                }
            }
            // a guard not in place counts nothing wrong; without it a migration may break a counter unseen
            try (ResultSet rs = c.createStatement().executeQuery(
                    "SELECT problem, fix FROM countercache.guard_problems()")) {
                while (rs.next()) {
                    lines.add(json ? String.format(Locale.ROOT, "{\"warning\":\"%s\",\"fix\":\"%s\"}",
                            escape(rs.getString(1)), escape(rs.getString(2)))
                            : "warning: " + rs.getString(1) + "\n    fix: " + rs.getString(2));
                }
            }
            lines.forEach(System.out::println);
            return problems == 0 ? 0 : 1;
        }
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
