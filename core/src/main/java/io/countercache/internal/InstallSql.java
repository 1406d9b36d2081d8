package io.countercache.internal;

import io.countercache.CounterCacheException;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation.Unit;
import io.countercache.spi.LimitDefinition;
import io.countercache.spi.TableName;

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
 *   <li>{@code countercache-schema}: the upgrades the database lacks, in order, then every subsystem's functions
 *       (see docs/architecture.md, "The database half");</li>
 *   <li>{@code countercache-check}: every counter's definition checked against the database, so that one run
 *       reports every problem (the definitions below stop at their first);</li>
 *   <li>one {@code countercache-source-<schema>.<table>} per source table: under a lock that keeps writers of the
 *       source out for the few milliseconds it takes, define each counter it feeds (its catalog row, as JSON), then
 *       {@code install_triggers}, which builds the table's triggers from the catalog;</li>
 *   <li>one {@code countercache-target-...} per target table, one {@code countercache-via-...} per middle table
 *       of a path and one {@code countercache-also-...} per further table of a counter fed by several:
 *       {@code install_triggers} for that table;</li>
 *   <li>{@code countercache-prune}: forget this changelog's counters that are no longer declared;</li>
 *   <li>{@code countercache-limits}: define the limit counters and forget those no longer declared;</li>
 *   <li>{@code countercache-recount}: run the requested recounts in batches, each its own transaction, so that
 *       writers never wait for them. It runs on every update, outside a transaction.</li>
 * </ol>
 */
public final class InstallSql {

    /** The schema's upgrades, in order: script n takes the tables from version n - 1 to version n. */
    static final List<String> UPGRADES = List.of("001-tables", "002-generated-triggers", "003-capture-by-size",
            "004-extremes", "005-distinct", "006-single-row-updates",
            "007-touch", "008-buckets", "009-feeds", "010-pairs", "011-recomputed-counts", "012-source-tables",
            "013-queue-claim", "014-round-claims", "015-generations");
    /** The subsystems' functions, in the order they are created: each file is one subsystem (grants.sql comes last). */
    static final List<String> SUBSYSTEMS =
            List.of("catalog", "keys", "buckets", "capture", "triggers", "recount", "checks", "rollup", "upkeep", "limits", "api");

    /** The version of the schema this library installs: the number of its upgrades. */
    public static int schemaVersion() {
        return UPGRADES.size();
    }

    private InstallSql() {
    }

    /**
     * The units that install exactly these counters and limits for one changelog (and remove those it installed
     * before and no longer declares; other changelogs' stay).
     */
    public static List<Unit> units(String changelog, List<CounterDefinition> counters, List<LimitDefinition> limits) {
        if (changelog == null || changelog.isBlank()) {
            throw new IllegalArgumentException("a changelog needs a name (Installation.DEFAULT_CHANGELOG if there is one)");
        }
        checkDistinct(counters);
        Map<TableName, List<CounterDefinition>> bySource = new TreeMap<>();
        for (CounterDefinition c : counters) {
            bySource.computeIfAbsent(c.source(), s -> new ArrayList<>()).add(c);
        }
        Map<TableName, List<CounterDefinition>> byTarget = new TreeMap<>();
        for (CounterDefinition c : counters) {
            byTarget.computeIfAbsent(c.target(), t -> new ArrayList<>()).add(c);
        }
        Map<TableName, List<CounterDefinition>> byVia = new TreeMap<>();
        for (CounterDefinition c : counters) {
            if (c.via() != null) {
                byVia.computeIfAbsent(c.via().table(), t -> new ArrayList<>()).add(c);
            }
        }
        List<Unit> units = new ArrayList<>();
        // the schema goes with the last changelog's counters and limits: another changelog may still use it
        units.add(new Unit("countercache-schema", "countercache catalog, queue and functions", schema(), false,
                "DO $rollback$ BEGIN IF NOT countercache.in_use() THEN DROP SCHEMA countercache CASCADE; END IF;"
                        + " END $rollback$;"));
        if (!counters.isEmpty()) {
            units.add(new Unit("countercache-check", "check every counter against the database, all problems at once",
                    checkSql(counters), false, null));
        }
        bySource.forEach((source, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-source-" + changesetName(source), "counters fed by " + source + ": " + declarers(defs),
                    sourceSql(source, defs), false, uninstall("capture", source, defs)));
        });
        byTarget.forEach((target, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-target-" + changesetName(target), "counters held by " + target + ": " + declarers(defs),
                    installTriggers(target, defs), false, uninstall("target", target, List.of())));
        });
        byVia.forEach((via, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-via-" + changesetName(via), "counters along paths through " + via + ": "
                    + declarers(defs), installTriggers(via, defs), false, uninstall("via", via, List.of())));
        });
        // the further tables of counters fed by several (their first table's unit defines them): their captures
        Map<TableName, List<CounterDefinition>> byMoreTable = new TreeMap<>();
        for (CounterDefinition c : counters) {
            for (String table : c.moreTables()) {
                byMoreTable.computeIfAbsent(new TableName(c.source().schema(), table), t -> new ArrayList<>()).add(c);
            }
        }
        byMoreTable.forEach((table, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-also-" + changesetName(table), "counters fed by " + table + " too: "
                    + declarers(defs), installTriggers(table, defs), false, uninstall("capture", table, List.of())));
        });
        String keep = counters.stream().map(CounterDefinition::name).sorted().map(Sql::literal)
                .collect(Collectors.joining(", "));
        units.add(new Unit("countercache-prune", "forget counters of changelog " + changelog + " that are no longer declared",
                "SELECT countercache.prune(" + literal(changelog) + ", ARRAY[" + keep + "]::text[]);\n", false, null));
        units.add(new Unit("countercache-limits", "limit counters: " + limits.stream().map(LimitDefinition::name)
                .sorted().collect(Collectors.joining(", ")), limitsSql(changelog, limits), false,
                "SELECT countercache.prune_limits(" + literal(changelog) + ", ARRAY[]::text[]);"));
        units.add(new Unit("countercache-recount", "recount new and changed counters, in batches",
                "CALL countercache.run_recounts();\n", true, null));
        return units;
    }

    /** Drops a table's triggers of one kind (and a source's counters): the rollback of its changeset. */
    private static String uninstall(String kind, TableName table, List<CounterDefinition> counters) {
        return "SELECT countercache.uninstall(" + literal(kind) + ", " + literal(table.schema()) + ", "
                + literal(table.table()) + ", ARRAY[" + counters.stream().map(c -> String.valueOf(c.id()))
                .collect(Collectors.joining(", ")) + "]::integer[]);";
    }

    /**
     * The countercache schema: the upgrades it does not have yet, in order (a schema newer than this library's is
     * refused), then every subsystem's functions, replaced; and the digest that tells which library installed them.
     * <p>
     * All of it runs with pg_catalog (and pg_temp) alone on the search_path, as every function does: an operator or
     * function planted in a schema of the migrator's path by a role that may create there, one that fits a call
     * exactly where pg_catalog's needs a cast ({@code oid = regprocedure}), would otherwise be chosen and run as the
     * migrator, or be bound into a view. The path is set local to the migration's transaction (Liquibase, Flyway and
     * {@code Installation.apply} run the schema in one) and put back at the end, for what that transaction runs after
     * it: a Flyway callback, the next migration of a group.
     */
    public static String schema() {
        StringBuilder sql = new StringBuilder()
                .append("SELECT pg_catalog.set_config('countercache.install_search_path',"
                        + " pg_catalog.current_setting('search_path'), true),\n"
                        + "       pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);\n\n")
                .append(resource("version.sql"));
        sql.append("\nSELECT countercache.begin_upgrades(").append(UPGRADES.size()).append(");\n");
        for (int i = 0; i < UPGRADES.size(); i++) {
            sql.append("SELECT countercache.upgrade(").append(i + 1).append(", ")
                    .append(dollarQuoted(resource("upgrade/" + UPGRADES.get(i) + ".sql"), "upgrade")).append(");\n");
        }
        for (String file : SUBSYSTEMS) {
            sql.append("\n").append(resource(file + ".sql"));
        }
        // the digest before the grants, which revoke from PUBLIC what exists by then
        return sql.append("\n-- Which library installed these functions, so that a boot check can tell another one's.\n")
                .append("CREATE OR REPLACE FUNCTION countercache.schema_digest()\nRETURNS text\nLANGUAGE sql IMMUTABLE\n")
                .append("SET search_path = pg_catalog, pg_temp\nAS $fn$ SELECT ").append(literal(schemaDigest()))
                .append(" $fn$;\n\n").append(resource("grants.sql"))
                .append("\nSELECT pg_catalog.set_config('search_path',"
                        + " pg_catalog.current_setting('countercache.install_search_path'), true);\n").toString();
    }

    /** A digest of this library's SQL; {@code countercache.schema_digest()} returns it once installed. */
    public static String schemaDigest() {
        StringBuilder all = new StringBuilder(resource("version.sql"));
        UPGRADES.forEach(u -> all.append(resource("upgrade/" + u + ".sql")));
        SUBSYSTEMS.forEach(f -> all.append(resource(f + ".sql")));
        all.append(resource("grants.sql"));
        return digest(all.toString(), 8);
    }

    /** The text, dollar-quoted with a tag it does not contain. */
    private static String dollarQuoted(String text, String tag) {
        String quote = "$" + tag + "$";
        for (int i = 1; text.contains(quote); i++) {
            quote = "$" + tag + "_" + i + "$";
        }
        return quote + "\n" + text + quote;
    }

    private static String resource(String name) {
        try (InputStream in = InstallSql.class.getResourceAsStream("/io/countercache/sql/" + name)) {
            if (in == null) {
                throw new IllegalStateException("io/countercache/sql/" + name + " is missing from the countercache-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Defines each limit (or changes it), then forgets the limits of this changelog no longer declared. */
    private static String limitsSql(String changelog, List<LimitDefinition> limits) {
        StringBuilder sql = new StringBuilder();
        java.util.Set<String> names = new java.util.TreeSet<>();
        for (LimitDefinition l : limits.stream().sorted(Comparator.comparing(LimitDefinition::name)).toList()) {
            if (!names.add(l.name())) {
                throw new CounterCacheException(l.declaredBy() + ": another @CounterLimit is also named \"" + l.name()
                        + "\"; give each limit its own name");
            }
            sql.append("SELECT countercache.define_limit(name => ").append(literal(l.name()))
                    .append(", period => ").append(literal(l.period())).append("::interval")
                    .append(", default_limit => ").append(l.defaultLimit())
                    .append(", time_zone => ").append(literal(l.timeZone()))
                    .append(", retention => ").append(l.retention())
                    .append(", declared_by => ").append(literal(l.declaredBy())).append(");\n");
        }
        sql.append("SELECT countercache.prune_limits(").append(literal(changelog)).append(", ARRAY[").append(names.stream().map(Sql::literal)
                .collect(Collectors.joining(", "))).append("]::text[]);\n");
        return sql.toString();
    }

    /** A changeset id part: the name as it is when it is plain, else made plain and told apart by a digest. */
    static String changesetName(TableName table) {
        String name = table.toString();
        String plain = name.replaceAll("[^A-Za-z0-9._-]", "_");
        return plain.equals(name) ? name : plain + "-" + digest(table.schema() + "\u0000" + table.table(), 4);
    }

    private static String digest(String text, int bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String declarers(List<CounterDefinition> defs) {
        return defs.stream().map(CounterDefinition::declaredBy).collect(Collectors.joining(", "));
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

    /**
     * Under a lock that keeps writers of the source out until commit (milliseconds: recounts run later), defines each
     * counter the table feeds, then rebuilds the table's triggers from the catalog, so that each write is counted by
     * either the old triggers or the new ones.
     */
    private static String sourceSql(TableName source, List<CounterDefinition> defs) {
        StringBuilder sql = new StringBuilder();
        sql.append("SELECT countercache.fail(").append(literal(declarers(defs))).append(", ")
                .append(literal("source table " + source + " does not exist")).append(",\n    ")
                .append(literal("apply the changelog that creates it before the countercache changelog"))
                .append(")\n WHERE pg_catalog.to_regclass(pg_catalog.format('%I.%I', ").append(literal(source.schema()))
                .append(", ").append(literal(source.table())).append(")) IS NULL;\n");
        sql.append(builtBy()).append("LOCK TABLE ").append(source.sql()).append(" IN SHARE ROW EXCLUSIVE MODE;\n\n");
        for (CounterDefinition c : defs) {
            sql.append(defineCall(c)).append('\n');
        }
        return sql.append(installTriggers(source)).toString();
    }

    /**
     * The library that generates this unit of a table, by the digest of its SQL: so that the unit's text, and with it
     * Liquibase's and Flyway's checksum, changes with the library, and an upgrade of the library reruns every table's
     * unit, which rebuilds the table's triggers with the generator just installed (see {@code countercache.built_by}).
     */
    private static String builtBy() {
        return "SELECT countercache.built_by(" + literal(schemaDigest()) + ");\n";
    }

    /** Rebuilds a table's triggers from the catalog: every counter it feeds, holds or lies on the path of. */
    private static String installTriggers(TableName table) {
        return "SELECT countercache.install_triggers(" + literal(table.schema()) + ", " + literal(table.table()) + ");\n";
    }

    /**
     * Rebuilds the triggers of a table these counters (defined by their sources' units) involve, and checks that they
     * serve them as defined: their names and definition hashes make the unit's text, so Liquibase's checksum, change
     * when a counter comes to the table or its definition changes (the key, scale or aggregate these triggers read).
     */
    private static String installTriggers(TableName table, List<CounterDefinition> serving) {
        return builtBy() + "SELECT countercache.install_triggers(" + literal(table.schema()) + ", " + literal(table.table())
                + ",\n    ARRAY[" + serving.stream().map(c -> literal(c.name())).collect(Collectors.joining(", "))
                + "]::text[],\n    ARRAY[" + serving.stream().map(c -> literal(c.definitionHash()))
                .collect(Collectors.joining(", ")) + "]::text[]);\n";
    }

    private static String defineCall(CounterDefinition c) {
        return "SELECT countercache.define_counter(" + definition(c) + ");\n";
    }

    /**
     * A counter's catalog row as a literal of a JSON object, one column a line: what define_counter and
     * definition_problems read. Its values are JSON strings with every control character escaped, so each line
     * starts with blanks and a key, and no line of the changelog can be taken for a directive.
     */
    static String definition(CounterDefinition c) {
        String json = c.catalogRow().entrySet().stream()
                .map(e -> "    " + json(e.getKey()) + ": " + json(e.getValue()))
                .collect(Collectors.joining(",\n", "{\n", "\n}"));
        return "'" + json.replace("'", "''") + "'";
    }

    /** A catalog value as JSON: a string, a list of strings (an array), or a number, a boolean or null as written. */
    private static String json(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(InstallSql::json).collect(Collectors.joining(", ", "[", "]"));
        }
        return value instanceof String v ? json(v) : String.valueOf(value);
    }

    /** A JSON string. */
    private static String json(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> out.append(ch < 0x20 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch));
            }
        }
        return out.append('"').toString();
    }

    /**
     * Checks every counter against the database before any is installed, so that one run reports all the problems
     * (define_counter, later, stops at the first).
     */
    private static String checkSql(List<CounterDefinition> counters) {
        return "SELECT countercache.report_problems(pg_catalog.array_agg(p.problem), pg_catalog.array_agg(p.fix))\n"
                + "  FROM (\n" + counters.stream().sorted(Comparator.comparing(CounterDefinition::name))
                .map(c -> "    SELECT * FROM countercache.definition_problems("
                        + definition(c).replace("\n", "\n        ") + ")")
                .collect(Collectors.joining("\n    UNION ALL\n")) + "\n  ) p;\n";
    }
}
