package io.countercache.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Compares counters with a recount of their sources, net of what is still queued for them, in one snapshot per
 * counter: exit 0 when every counter is exact, 1 when some drifted (the rows are printed) or holds dead letters (sums
 * its targets refused, which stay out of the column until a recount after the fix puts them back).
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Compare counters with a recount of their sources; exit 1 on drift.")
final class Verify implements Callable<Integer> {

    @Mixin
    Database database;

    @Option(names = "--counter", paramLabel = "NAME", description = "Only this counter (schema.table.column).")
    String counter;

    @Option(names = "--sample", paramLabel = "N", defaultValue = "20",
            description = "Drifted rows to print per counter (default: ${DEFAULT-VALUE}).")
    int sample;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (sample < 1) {   // drift(id, 0) reads no row: every counter would look exact
            throw new ParameterException(spec.commandLine(), "--sample must be at least 1, got " + sample);
        }
        int drifted = 0;
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement("SELECT key, stored, pending, exact FROM countercache.drift(?, ?)")) {
            // drift nets out the dead letters as pending: the column plus them is exact, the column alone is not
            Map<String, Long> dead = new HashMap<>();
            try (ResultSet rs = c.createStatement().executeQuery("SELECT s.name, s.dead_letters FROM"
                    + " countercache.status() s WHERE s.dead_letters OPERATOR(pg_catalog.>) 0")) {
                while (rs.next()) {
                    dead.put(rs.getString(1), rs.getLong(2));
                }
            }
            for (Object[] k : Database.counters(c, counter)) {
                ps.setInt(1, (Integer) k[0]);
                ps.setInt(2, sample);
                int rows = 0;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (rows++ == 0) {
                            System.out.println(k[1] + ": drifted (key, stored, pending, exact):");
                        }
                        System.out.println("  " + rs.getString(1) + "\t" + rs.getBigDecimal(2) + "\t"
                                + rs.getBigDecimal(3) + "\t" + rs.getBigDecimal(4));
                    }
                }
                long deadLetters = dead.getOrDefault((String) k[1], 0L);
                System.out.println(k[1] + ": " + (rows == 0 ? "exact" : rows + (rows == sample ? "+" : "") + " drifted")
                        + (deadLetters == 0 ? "" : ", and " + deadLetters + " sums in the dead letters, refused by their"
                        + " target rows: fix the cause (the schema's dead letter table holds each error), then repair"
                        + " this counter"));
                drifted += rows > 0 || deadLetters > 0 ? 1 : 0;
            }
        }
        return drifted == 0 ? 0 : 1;
    }
}
