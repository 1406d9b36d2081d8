package io.countercache.spi;

import io.countercache.CounterCacheException;
import io.countercache.internal.Sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static io.countercache.internal.Sql.ident;
import static io.countercache.internal.Sql.literal;

/**
 * The SQL that installs a set of counters, as an ordered list of units. Each unit runs in one transaction and can run
 * again: the Liquibase module turns each into a changeset that reruns when its text changes, and tests run them
 * over JDBC directly. The text is deterministic (sorted, no timestamps) so that a regenerated file diffs cleanly.
 *
 * <ol>
 *   <li>{@code countercache-schema}: the catalog, the queue and the functions;</li>
 *   <li>one {@code countercache-source-<schema>.<table>} per source table: under a lock that keeps writers of the
 *       source out, define (check, record, add the column, recount when new or changed) each counter it feeds, then
 *       (re)create the statement-level capture triggers that turn every write into queued deltas;</li>
 *   <li>{@code countercache-prune}: forget counters that are no longer declared.</li>
 * </ol>
 */
public final class InstallSql {

    /** One transaction's worth of SQL: {@code id} is stable across regenerations. */
    public record Unit(String id, String description, String sql) {
    }

    private static final String NEW_ROWS = "countercache_new";
    private static final String OLD_ROWS = "countercache_old";

    private InstallSql() {
    }

    /** The units that install exactly these counters (and remove any other counter installed before). */
    public static List<Unit> units(List<CounterDefinition> counters) {
        checkDistinct(counters);
        Map<TableName, List<CounterDefinition>> bySource = new TreeMap<>();
        for (CounterDefinition c : counters) {
            bySource.computeIfAbsent(c.source(), s -> new ArrayList<>()).add(c);
        }
        List<Unit> units = new ArrayList<>();
        units.add(new Unit("countercache-schema", "countercache catalog, queue and functions", schema()));
        bySource.forEach((source, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-source-" + source,
                    "counters fed by " + source + ": " + defs.stream().map(CounterDefinition::declaredBy)
                            .collect(Collectors.joining(", ")),
                    sourceSql(source, defs)));
        });
        String keep = counters.stream().map(CounterDefinition::name).sorted().map(Sql::literal)
                .collect(Collectors.joining(", "));
        units.add(new Unit("countercache-prune", "forget counters that are no longer declared",
                "SELECT countercache.prune(ARRAY[" + keep + "]::text[]);\n"));
        return units;
    }

    /** The countercache schema itself (idempotent). */
    public static String schema() {
        String sql = schemaFile();
        return sql + "\n-- Which schema.sql this is, so that a boot check can tell an installation made by another version.\n"
                + "CREATE OR REPLACE FUNCTION countercache.schema_version()\nRETURNS text\nLANGUAGE sql IMMUTABLE\n"
                + "SET search_path = pg_catalog, pg_temp\nAS $fn$ SELECT " + literal(schemaVersion()) + " $fn$;\n";
    }

    /** A digest of this library's schema.sql; {@code countercache.schema_version()} returns it once installed. */
    public static String schemaVersion() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(schemaFile().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String schemaFile() {
        try (InputStream in = InstallSql.class.getResourceAsStream("/io/countercache/schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("io/countercache/schema.sql is missing from the countercache-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The name of the capture function of a source table, at most 63 bytes and unique per table. */
    static String captureFunction(TableName source) {
        String name = "capture_" + source.schema() + "_" + source.table();
        if (name.getBytes(StandardCharsets.UTF_8).length <= 63) {
            return name;
        }
        String hash = Integer.toHexString(source.toString().hashCode());
        return "capture_" + source.table().substring(0, Math.min(source.table().length(), 40)) + "_" + hash;
    }

    private static void checkDistinct(List<CounterDefinition> counters) {
        Map<String, CounterDefinition> byName = new HashMap<>();
        Map<Integer, CounterDefinition> byId = new HashMap<>();
        for (CounterDefinition c : counters) {
            CounterDefinition other = byName.putIfAbsent(c.name(), c);
            if (other != null) {
                throw new CounterCacheException("@CounterCache on " + c.declaredBy() + " and on " + other.declaredBy()
                        + " both map to column " + c.name() + "; give each counter its own column");
            }
            other = byId.putIfAbsent(c.id(), c);
            if (other != null) {
                throw new CounterCacheException("@CounterCache on " + c.declaredBy() + " and on " + other.declaredBy()
                        + " hash to the same counter id " + c.id() + "; rename one of the counter columns");
            }
        }
    }

    private static String sourceSql(TableName source, List<CounterDefinition> defs) {
        StringBuilder sql = new StringBuilder();
        sql.append("-- Keeps writers of ").append(source).append(" out until commit, so no delta is in flight while")
                .append(" counters are recounted and triggers replaced.\n");
        sql.append("LOCK TABLE ").append(source.sql()).append(" IN SHARE ROW EXCLUSIVE MODE;\n\n");
        for (CounterDefinition c : defs) {
            sql.append(defineCall(c)).append('\n');
        }
        String fn = "countercache." + ident(captureFunction(source));
        sql.append("CREATE OR REPLACE FUNCTION ").append(fn).append("()\n")
                .append("RETURNS trigger\nLANGUAGE plpgsql\nSET search_path = pg_catalog, pg_temp\nAS $capture$\n")
                .append("#variable_conflict use_column\nBEGIN\n")
                .append("    IF TG_OP = 'INSERT' THEN\n").append(enqueue(defs, true, false))
                .append("    ELSIF TG_OP = 'DELETE' THEN\n").append(enqueue(defs, false, true))
                .append("    ELSIF TG_OP = 'UPDATE' THEN\n").append(enqueue(defs, true, true))
                .append("    END IF;\n    RETURN NULL;\nEND\n$capture$;\n\n");
        sql.append(trigger("countercache_insert", "INSERT", "REFERENCING NEW TABLE AS " + NEW_ROWS, source, fn));
        sql.append(trigger("countercache_update", "UPDATE",
                "REFERENCING OLD TABLE AS " + OLD_ROWS + " NEW TABLE AS " + NEW_ROWS, source, fn));
        sql.append(trigger("countercache_delete", "DELETE", "REFERENCING OLD TABLE AS " + OLD_ROWS, source, fn));
        sql.append(trigger("countercache_truncate", "TRUNCATE", null, source, "countercache.capture_truncate"));
        return sql.toString();
    }

    private static String defineCall(CounterDefinition c) {
        return "SELECT countercache.define_counter(\n"
                + "    id => " + c.id() + ", name => " + literal(c.name()) + ", declared_by => " + literal(c.declaredBy()) + ",\n"
                + "    target_schema => " + literal(c.target().schema()) + ", target_table => " + literal(c.target().table())
                + ", target_key => " + literal(c.targetKey()) + ", key_type => " + literal(c.keyType().sqlName()) + ",\n"
                + "    target_column => " + literal(c.column()) + ", column_type => " + literal(c.columnType()) + ",\n"
                + "    source_schema => " + literal(c.source().schema()) + ", source_table => " + literal(c.source().table())
                + ", source_fk => " + literal(c.sourceFk()) + ",\n"
                + "    condition => " + literal(c.condition()) + ", sum_column => " + literal(c.sumColumn()) + ",\n"
                + "    definition_hash => " + literal(c.definitionHash()) + ");\n";
    }

    /**
     * One INSERT per key type into the queue: every counter's contribution from the new rows (added) and the old rows
     * (subtracted), summed per counter and target, so a bulk statement yields one delta per target and an update that
     * changes nothing relevant yields none.
     */
    private static String enqueue(List<CounterDefinition> defs, boolean added, boolean removed) {
        StringBuilder out = new StringBuilder();
        Map<String, List<CounterDefinition>> byQueueColumn = new TreeMap<>();
        for (CounterDefinition c : defs) {
            byQueueColumn.computeIfAbsent(c.keyType().queueColumn(), k -> new ArrayList<>()).add(c);
        }
        byQueueColumn.forEach((queueColumn, group) -> {
            List<String> parts = new ArrayList<>();
            for (CounterDefinition c : group) {
                if (added) {
                    parts.add(contribution(c, NEW_ROWS, ""));
                }
                if (removed) {
                    parts.add(contribution(c, OLD_ROWS, "-"));
                }
            }
            out.append("        INSERT INTO countercache.delta (counter_id, ").append(queueColumn).append(", delta)\n")
                    .append("        SELECT c, k, sum(d) FROM (\n            ")
                    .append(String.join("\n            UNION ALL\n            ", parts))
                    .append("\n        ) s GROUP BY c, k HAVING sum(d) <> 0;\n");
        });
        return out.toString();
    }

    private static String contribution(CounterDefinition c, String rows, String sign) {
        String alias = ident(c.source().table());
        String fk = alias + "." + ident(c.sourceFk());
        String value = c.sumColumn() == null ? sign + "1" : sign + "coalesce(" + alias + "." + ident(c.sumColumn()) + ", 0)";
        String where = fk + " IS NOT NULL" + (c.condition() == null ? "" : " AND (" + c.condition() + ")");
        return "SELECT " + c.id() + " AS c, " + fk + " AS k, " + value + " AS d FROM " + rows + " AS " + alias
                + " WHERE " + where;
    }

    private static String trigger(String name, String event, String referencing, TableName source, String fn) {
        return "CREATE OR REPLACE TRIGGER " + name + " AFTER " + event + " ON " + source.sql()
                + (referencing == null ? "" : "\n    " + referencing)
                + "\n    FOR EACH STATEMENT EXECUTE FUNCTION " + fn + "();\n";
    }
}
