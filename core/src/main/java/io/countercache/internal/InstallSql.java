package io.countercache.internal;

import io.countercache.CounterCacheException;
import io.countercache.Strategy;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.Installation.Unit;
import io.countercache.spi.LimitDefinition;
import io.countercache.spi.TableName;

import java.io.IOException;
import java.math.BigDecimal;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
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
 *   <li>{@code countercache-check}: every counter checked against the database, so that one run reports every
 *       problem (the definitions below stop at their first);</li>
 *   <li>one {@code countercache-source-<schema>.<table>} per source table: under a lock that keeps writers of the
 *       source out for the few milliseconds it takes, define (check, record, add the column, ask for a recount when
 *       new or changed) each counter it feeds, then (re)create the capture triggers that turn every write, and every
 *       TRUNCATE, into queued deltas;</li>
 *   <li>one {@code countercache-target-<schema>.<table>} per target table: the triggers that hand a deleted target
 *       row's counts back to the queue (and take an inserted row's), so that a key's deltas stay exact across a
 *       delete and a re-insert;</li>
 *   <li>{@code countercache-prune}: forget counters that are no longer declared;</li>
 *   <li>{@code countercache-recount}: run the requested recounts in batches, each its own transaction, so that
 *       writers never wait for them. It runs on every update, outside a transaction.</li>
 * </ol>
 */
public final class InstallSql {

    /** The capture triggers of a source table, and the triggers of a target table; the boot check counts them. */
    public static final List<String> SOURCE_TRIGGERS =
            List.of("countercache_insert", "countercache_update", "countercache_delete", "countercache_truncate");
    public static final List<String> TARGET_TRIGGERS = List.of("countercache_target_insert",
            "countercache_target_delete", "countercache_target_key", "countercache_target_truncate");
    public static final List<String> VIA_TRIGGERS = List.of("countercache_via_update", "countercache_via_delete");

    private static final String NEW_ROWS = "countercache_new";
    private static final String OLD_ROWS = "countercache_old";

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
                "DO $rollback$ BEGIN IF NOT EXISTS (SELECT FROM countercache.counter) AND NOT EXISTS (SELECT FROM"
                        + " countercache.limit_def) THEN DROP SCHEMA countercache CASCADE; END IF; END $rollback$;"));
        if (!counters.isEmpty()) {
            units.add(new Unit("countercache-check", "check every counter against the database, all problems at once",
                    checkSql(counters), false, null));
        }
        bySource.forEach((source, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-source-" + changesetName(source), "counters fed by " + source + ": " + declarers(defs),
                    sourceSql(changelog, source, defs), false, uninstall("capture", source, defs)));
        });
        byTarget.forEach((target, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-target-" + changesetName(target), "counters held by " + target + ": " + declarers(defs),
                    targetSql(changelog, target, defs), false, uninstall("target", target, List.of())));
        });
        byVia.forEach((via, defs) -> {
            defs.sort(Comparator.comparing(CounterDefinition::name));
            units.add(new Unit("countercache-via-" + changesetName(via), "counters along paths through " + via + ": "
                    + declarers(defs), viaSql(changelog, via, defs), false, uninstall("via", via, List.of())));
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

    /** The variables a trigger function's slotted captures need (none without a slotted counter). */
    private static String declarations(List<CounterDefinition> defs) {
        return defs.stream().anyMatch(c -> c.strategy() == Strategy.SLOTTED) ? "DECLARE\n    r record;\n    held tid;\n" : "";
    }

    /** Drops a table's triggers of one kind (and a source's counters): the rollback of its changeset. */
    private static String uninstall(String kind, TableName table, List<CounterDefinition> counters) {
        return "SELECT countercache.uninstall(" + literal(kind) + ", " + literal(table.schema()) + ", "
                + literal(table.table()) + ", ARRAY[" + counters.stream().map(c -> String.valueOf(c.id()))
                .collect(Collectors.joining(", ")) + "]::integer[]);";
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

    /**
     * The name of a table's trigger function ({@code capture_} or {@code target_}): readable, at most 63 bytes, and
     * unique per table, since it ends with a digest of the qualified name ({@code a.b_c} and {@code a_b.c} differ).
     */
    public static String triggerFunction(String prefix, TableName table) {
        String digest = digest(table.schema() + "\u0000" + table.table());
        String readable = prefix + table.schema() + "_" + table.table();
        while (readable.getBytes(StandardCharsets.UTF_8).length > 63 - 1 - digest.length()) {
            readable = readable.substring(0, readable.length() - 1);
        }
        return readable + "_" + digest;
    }

    /** A changeset id part: the name as it is when it is plain, else made plain and told apart by a digest. */
    static String changesetName(TableName table) {
        String name = table.toString();
        String plain = name.replaceAll("[^A-Za-z0-9._-]", "_");
        return plain.equals(name) ? name : plain + "-" + digest(table.schema() + "\u0000" + table.table());
    }

    private static String digest(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
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

    private static String sourceSql(String changelog, TableName source, List<CounterDefinition> defs) {
        StringBuilder sql = new StringBuilder(oneChangelogPerTable(changelog, "source", source, defs));
        sql.append("-- Keeps writers of ").append(source).append(" out until commit (milliseconds: recounts run later),")
                .append(" so that each write is counted by either the old triggers or the new ones.\n");
        sql.append("SELECT countercache.fail(").append(literal(declarers(defs))).append(", ")
                .append(literal("source table " + source + " does not exist")).append(",\n    ")
                .append(literal("apply the changelog that creates it before the countercache changelog"))
                .append(")\n WHERE pg_catalog.to_regclass(").append(literal(source.sql())).append(") IS NULL;\n");
        sql.append("LOCK TABLE ").append(source.sql()).append(" IN SHARE ROW EXCLUSIVE MODE;\n\n");
        for (CounterDefinition c : defs) {
            sql.append(defineCall(c)).append('\n');
        }
        String fn = "countercache." + ident(triggerFunction("capture_", source));
        String truncated = "TRUNCATE of " + source;
        String body = "#variable_conflict use_column\n" + declarations(defs) + "BEGIN\n"
                // the foreign key check of an INSERT (and of an UPDATE that changes the key) has locked the middle
                // rows of the new rows already: a path needs that constraint, and it is checked before this trigger
                + "    IF TG_OP = 'INSERT' THEN\n" + capture(defs, changed(NEW_ROWS), null)
                + "    ELSIF TG_OP = 'DELETE' THEN\n" + lockVias(defs, OLD_ROWS) + capture(defs, null, changed(OLD_ROWS))
                + "    ELSIF TG_OP = 'UPDATE' THEN\n" + lockVias(defs, OLD_ROWS)
                + capture(defs, changed(NEW_ROWS), changed(OLD_ROWS))
                + "    ELSIF TG_OP = 'TRUNCATE' THEN\n"
                + "        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted\n"
                + "        PERFORM countercache.require_read_committed(" + literal(truncated) + ",\n"
                + "            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');\n"
                + lockVias(defs, source.sql()) + capture(defs, null, changed(source.sql()))
                + "    END IF;\n    RETURN NULL;\nEND\n";
        sql.append(triggerFunctionSql(fn, "capture", source, body));
        sql.append(trigger(SOURCE_TRIGGERS.get(0), "AFTER INSERT", "REFERENCING NEW TABLE AS " + NEW_ROWS, source, fn));
        sql.append(trigger(SOURCE_TRIGGERS.get(1), "AFTER UPDATE",
                "REFERENCING OLD TABLE AS " + OLD_ROWS + " NEW TABLE AS " + NEW_ROWS, source, fn));
        sql.append(trigger(SOURCE_TRIGGERS.get(2), "AFTER DELETE", "REFERENCING OLD TABLE AS " + OLD_ROWS, source, fn));
        sql.append(trigger(SOURCE_TRIGGERS.get(3), "BEFORE TRUNCATE", null, source, fn));
        return sql.toString();
    }

    /**
     * A target row's counter columns belong to the count of its key: a deleted (or truncated) row hands its values
     * back to the queue and an inserted row takes its initial values out, so the column, the queue, the dead letters
     * and the orphans of a key always add up to its recount, whatever happens to the row (see the recount argument).
     */
    private static String targetSql(String changelog, TableName target, List<CounterDefinition> defs) {
        String fn = "countercache." + ident(triggerFunction("target_", target));
        String key = ident(defs.get(0).targetKey());
        String body = "BEGIN\n"
                + "    IF TG_OP = 'INSERT' THEN\n" + handBack(defs, NEW_ROWS, "-")
                + "    ELSIF TG_OP = 'DELETE' THEN\n" + handBack(defs, OLD_ROWS, "")
                + "    ELSIF TG_OP = 'UPDATE' THEN\n"
                + "        -- the key changed (a row trigger, only then): the old key gets its values back\n"
                + "        INSERT INTO countercache.delta (counter_id, " + defs.get(0).keyType().queueColumn()
                + ", delta)\n        SELECT c, k, d FROM (VALUES\n            "
                + defs.stream().map(c -> "(" + c.id() + ", OLD." + key + ", " + units(c, "OLD." + ident(c.column()))
                        + "), (" + c.id() + ", NEW." + key + ", -" + units(c, "NEW." + ident(c.column())) + ")")
                        .collect(Collectors.joining(",\n            "))
                + "\n        ) v(c, k, d) WHERE d <> 0;\n"
                + "    ELSIF TG_OP = 'TRUNCATE' THEN\n"
                + "        PERFORM countercache.require_read_committed(" + literal("TRUNCATE of " + target)
                + ",\n            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');\n"
                + handBack(defs, target.sql(), "")
                + "    END IF;\n    RETURN NULL;\nEND\n";
        StringBuilder sql = new StringBuilder(oneChangelogPerTable(changelog, "target", target, defs));
        sql.append(triggerFunctionSql(fn, "target", target, body));
        sql.append(trigger(TARGET_TRIGGERS.get(0), "AFTER INSERT", "REFERENCING NEW TABLE AS " + NEW_ROWS, target, fn));
        sql.append(trigger(TARGET_TRIGGERS.get(1), "AFTER DELETE", "REFERENCING OLD TABLE AS " + OLD_ROWS, target, fn));
        sql.append("CREATE OR REPLACE TRIGGER ").append(TARGET_TRIGGERS.get(2)).append(" AFTER UPDATE OF ").append(key)
                .append(" ON ").append(target.sql()).append("\n    FOR EACH ROW WHEN (OLD.").append(key)
                .append(" IS DISTINCT FROM NEW.").append(key).append(") EXECUTE FUNCTION ").append(fn).append("();\n");
        sql.append(trigger(TARGET_TRIGGERS.get(3), "BEFORE TRUNCATE", null, target, fn));
        return sql.toString();
    }

    /**
     * Refuses to install when another changelog's counters feed from (or are held by) the same table: a table has
     * one set of triggers, generated from one changelog's counters, so a second changelog would replace them.
     */
    private static String oneChangelogPerTable(String changelog, String role, TableName table, List<CounterDefinition> defs) {
        return "SELECT countercache.fail(" + literal(declarers(defs)) + ", pg_catalog.format("
                + literal(role + " table " + table.toString().replace("%", "%%") + " also has counters of changelog %L (%s)")
                + ", pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),\n    "
                + literal("generate every counter of one table into one changelog (or remove them from the other first)")
                + ")\n  FROM countercache.counter k\n WHERE k." + role + "_schema OPERATOR(pg_catalog.=) "
                + literal(table.schema()) + " AND k." + role + "_table OPERATOR(pg_catalog.=) " + literal(table.table())
                + "\n   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY[" + literal(changelog) + ", ''])"
                + "\nHAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;\n";
    }

    /**
     * A trigger function with this body, dollar-quoted with a tag the body does not contain (a {@code where} is
     * spliced into the body, and may hold any text).
     */
    private static String triggerFunctionSql(String fn, String tag, TableName table, String body) {
        String guarded = "BEGIN\n    IF TG_TABLE_SCHEMA <> " + literal(table.schema()) + " OR TG_TABLE_NAME <> "
                + literal(table.table()) + " THEN\n"
                + "        RAISE EXCEPTION 'countercache: % serves " + table.toString().replace("'", "''").replace("%", "%%")
                + " only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME\n"
                + "            USING ERRCODE = 'insufficient_privilege';\n    END IF;\n"
                + body.substring(body.indexOf("BEGIN\n") + "BEGIN\n".length());
        String prelude = body.substring(0, body.indexOf("BEGIN\n"));
        String quote = "$" + tag + "$";
        for (int i = 1; (prelude + guarded).contains(quote); i++) {
            quote = "$" + tag + "_" + i + "$";
        }
        // SECURITY DEFINER: the writer needs no right on the queue, so it can neither read, forge nor block it; the
        // function only ever queues what the statement that fired it changed, on the one table it serves.
        return "CREATE OR REPLACE FUNCTION " + fn + "()\nRETURNS trigger\nLANGUAGE plpgsql\nSECURITY DEFINER\n"
                + "SET search_path = pg_catalog, pg_temp\nAS " + quote + "\n" + prelude + guarded + quote + ";\n"
                + "REVOKE ALL ON FUNCTION " + fn + "() FROM PUBLIC;\n\n";
    }

    /** Queues each counter's value in these rows of the target, with this sign, per key. */
    private static String handBack(List<CounterDefinition> defs, String rows, String sign) {
        String key = ident(defs.get(0).targetKey());
        return "        INSERT INTO countercache.delta (counter_id, " + defs.get(0).keyType().queueColumn() + ", delta)\n"
                + "        SELECT c, k, d FROM (\n            "
                + defs.stream().map(c -> "SELECT " + c.id() + " AS c, r." + key + " AS k, " + sign
                        + units(c, "r." + ident(c.column())) + " AS d FROM " + rows + " AS r")
                        .collect(Collectors.joining("\n            UNION ALL\n            "))
                + "\n        ) s WHERE d <> 0;\n";
    }

    private static String defineCall(CounterDefinition c) {
        return "SELECT countercache.define_counter(\n"
                + "    id => " + c.id() + ", name => " + literal(c.name()) + ", " + arguments(c)
                + ",\n    definition_hash => " + literal(c.definitionHash()) + ");\n";
    }

    /** The arguments define_counter and counter_problems share, from declared_by on. */
    private static String arguments(CounterDefinition c) {
        return "declared_by => " + literal(c.declaredBy()) + ",\n"
                + "    target_schema => " + literal(c.target().schema()) + ", target_table => " + literal(c.target().table())
                + ", target_key => " + literal(c.targetKey()) + ", key_type => " + literal(c.keyType().sqlName()) + ",\n"
                + "    target_column => " + literal(c.column()) + ", column_type => " + literal(c.columnType()) + ",\n"
                + "    source_schema => " + literal(c.source().schema()) + ", source_table => " + literal(c.source().table())
                + ", source_fk => " + literal(c.sourceFk()) + ",\n"
                + "    condition => " + literal(c.condition()) + ", sum_column => " + literal(c.sumColumn()) + ",\n"
                + "    strategy => " + literal(c.strategy().sqlName()) + ", slots => " + c.slots()
                + (c.via() == null ? "" : ",\n    via_schema => " + literal(c.via().table().schema()) + ", via_table => "
                        + literal(c.via().table().table()) + ", via_key => " + literal(c.via().key()) + ", via_key_type => "
                        + literal(c.via().keyType().sqlName()) + ", via_fk => " + literal(c.via().fk()))
                + (c.scale() == 0 ? "" : ",\n    scale => " + c.scale());
    }

    /**
     * Checks every counter against the database before any is installed, so that one run reports all the problems
     * (define_counter, later, stops at the first).
     */
    private static String checkSql(List<CounterDefinition> counters) {
        return "SELECT countercache.report_problems(pg_catalog.array_agg(p.problem), pg_catalog.array_agg(p.fix))\n"
                + "  FROM (\n" + counters.stream().sorted(Comparator.comparing(CounterDefinition::name))
                .map(c -> "    SELECT * FROM countercache.counter_problems(" + arguments(c).replace("\n    ", "\n        ") + ")")
                .collect(Collectors.joining("\n    UNION ALL\n")) + "\n  ) p;\n";
    }

    /**
     * What each counter's strategy does with the rows a statement added and removed (subtracted; a transition table,
     * or the source table itself before a TRUNCATE). Every strategy first sums the contributions per counter and
     * target, so a bulk statement yields one change per target and an update that changes nothing relevant none.
     */
    private static String capture(List<CounterDefinition> defs, Rows added, Rows removed) {
        Map<Strategy, List<CounterDefinition>> byStrategy = new EnumMap<>(Strategy.class);
        for (CounterDefinition c : defs) {
            byStrategy.computeIfAbsent(c.strategy(), k -> new ArrayList<>()).add(c);
        }
        StringBuilder out = new StringBuilder();
        byStrategy.forEach((strategy, group) -> out.append(switch (strategy) {
            case QUEUE -> enqueue("countercache.delta", group, added, removed);
            case UNLOGGED -> enqueue("countercache.delta_unlogged", group, added, removed);
            case DIRECT -> direct(group, added, removed);
            case SLOTTED -> slotted(group, added, removed);
            case DEFAULT -> throw new IllegalArgumentException("Strategy.DEFAULT is resolved before installing");
        }));
        return out.toString();
    }

    /** Queue and unlogged queue: one INSERT per key type into the queue table. */
    private static String enqueue(String queue, List<CounterDefinition> defs, Rows added, Rows removed) {
        StringBuilder out = new StringBuilder();
        Map<String, List<CounterDefinition>> byQueueColumn = new TreeMap<>();
        for (CounterDefinition c : defs) {
            byQueueColumn.computeIfAbsent(c.keyType().queueColumn(), k -> new ArrayList<>()).add(c);
        }
        byQueueColumn.forEach((queueColumn, group) -> out.append("        INSERT INTO ").append(queue)
                .append(" (counter_id, ").append(queueColumn).append(", delta)\n        ")
                .append(deltas(group, added, removed)).append(";\n"));
        return out.toString();
    }

    /**
     * Direct: one UPDATE per target table adds each counter's sum to its column in the writer's transaction; sums for
     * keys no target row has are kept as orphans (as the rollup would), so nothing is lost.
     */
    private static String direct(List<CounterDefinition> defs, Rows added, Rows removed) {
        Map<TableName, List<CounterDefinition>> byTarget = new TreeMap<>();
        for (CounterDefinition c : defs) {
            byTarget.computeIfAbsent(c.target(), k -> new ArrayList<>()).add(c);
        }
        StringBuilder out = new StringBuilder();
        byTarget.forEach((target, group) -> {
            String key = ident(group.get(0).targetKey());
            List<String> sums = new ArrayList<>();
            List<String> sets = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                CounterDefinition c = group.get(i);
                sums.add("sum(s.d) FILTER (WHERE s.c = " + c.id() + ") AS d" + i);
                sets.add(ident(c.column()) + " = coalesce(t." + ident(c.column()) + ", 0) + " + amount(c, "coalesce(w.d" + i + ", 0)"));
            }
            out.append("        WITH s AS (\n            ").append(deltas(group, added, removed))
                    .append("\n        ), w AS (\n            SELECT s.k, ").append(String.join(", ", sums))
                    .append(" FROM s GROUP BY s.k\n        ), u AS (\n            UPDATE ").append(target.sql())
                    .append(" t SET ").append(String.join(", ", sets)).append("\n              FROM w WHERE t.")
                    .append(key).append(" = w.k RETURNING t.").append(key).append(" AS k\n        )\n")
                    .append("        INSERT INTO countercache.orphan (counter_id, ").append(group.get(0).keyType().queueColumn())
                    .append(", delta, enqueued_at)\n")
                    .append("        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);\n");
        });
        return out.toString();
    }

    /**
     * Slotted: per counter and target, add the sum to a slot row no other transaction holds (FOR UPDATE SKIP LOCKED);
     * if every existing slot is held, open one of the counter's N slot numbers that has no row yet and that no other
     * writer is opening (each opener holds an advisory lock on the number until it commits), chosen at random; if there
     * is none, queue the sum instead. So a writer never waits for another's slot. The lock and the update are two
     * statements: the lock returns the row's latest version, which the locking statement's own snapshot may not see
     * (an update committed since it began), but the next statement's does.
     */
    private static String slotted(List<CounterDefinition> defs, Rows added, Rows removed) {
        StringBuilder out = new StringBuilder();
        for (CounterDefinition c : defs) {
            String kc = c.keyType().queueColumn();
            out.append("        FOR r IN ").append(deltas(List.of(c), added, removed)).append(" ORDER BY k LOOP\n")
                    .append("            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = ")
                    .append(c.id()).append(" AND x.").append(kc).append(" = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;\n")
                    .append("            IF FOUND THEN\n")
                    .append("                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;\n")
                    .append("            ELSE\n")
                    .append("                -- every slot row is held, or none exists: open a slot no row has yet and no other\n")
                    .append("                -- writer is opening (its advisory lock), else queue\n")
                    .append("                INSERT INTO countercache.slot (counter_id, ").append(kc).append(", slot, n)\n")
                    .append("                SELECT ").append(c.id()).append(", r.k, f.s, r.d FROM (\n")
                    .append("                    SELECT g.s FROM generate_series(0, ").append(c.slots() - 1).append(") AS g(s)\n")
                    .append("                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = ")
                    .append(c.id()).append(" AND y.").append(kc).append(" = r.k AND y.slot = g.s)\n")
                    .append("                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one\n")
                    .append("                 WHERE pg_try_advisory_xact_lock(hashtextextended(")
                    .append(literal(c.id() + ":")).append(" || r.k || ':' || f.s, 0))\n")
                    .append("                 LIMIT 1\n")
                    .append("                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;\n")
                    .append("                IF NOT FOUND THEN\n")
                    .append("                    INSERT INTO countercache.delta (counter_id, ").append(kc)
                    .append(", delta) VALUES (").append(c.id()).append(", r.k, r.d);\n")
                    .append("                END IF;\n")
                    .append("            END IF;\n        END LOOP;\n");
        }
        return out.toString();
    }

    /** Each counter's contributions from the added rows and the removed rows, summed per counter (c) and target (k). */
    private static String deltas(List<CounterDefinition> defs, Rows added, Rows removed) {
        List<String> parts = new ArrayList<>();
        for (CounterDefinition c : defs) {
            if (added != null) {
                parts.add(added.contribution(c, ""));
            }
            if (removed != null) {
                parts.add(removed.contribution(c, "-"));
            }
        }
        return "SELECT c, k, sum(d) AS d FROM (\n            " + String.join("\n            UNION ALL\n            ", parts)
                + "\n        ) s GROUP BY c, k HAVING sum(d) <> 0";
    }

    /**
     * Where a capture's contributions come from: one query per counter of (c, k, d) rows, each the contribution of
     * one source row with this sign, in the counter's units (see {@link CounterDefinition#scale()}).
     */
    private interface Rows {
        String contribution(CounterDefinition c, String sign);
    }

    /**
     * Source rows a statement changed (a transition table, or the source table before a TRUNCATE). With a path, each
     * counts for the target its middle row points at now: the condition is judged on the source row alone, then the
     * row is joined to its middle row.
     */
    private static Rows changed(String rows) {
        return (c, sign) -> {
            String alias = ident(c.source().table());
            String fk = alias + "." + ident(c.sourceFk());
            String value = value(c, alias, sign);
            String where = fk + " IS NOT NULL" + (c.condition() == null ? "" : " AND (" + c.condition() + ")");
            if (c.via() == null) {
                return "SELECT " + named(c) + c.id() + " AS c, " + fk + " AS k, " + value + " AS d FROM " + rows + " AS "
                        + alias + " WHERE " + where;
            }
            return "SELECT " + named(c) + c.id() + " AS c, v." + ident(c.via().fk()) + " AS k, s.d FROM (SELECT " + fk + " AS f, "
                    + value + " AS d FROM " + rows + " AS " + alias + " WHERE " + where + ") s JOIN "
                    + c.via().table().sql() + " v ON v." + ident(c.via().key()) + " = s.f WHERE v."
                    + ident(c.via().fk()) + " IS NOT NULL";
        };
    }

    /** The source rows under one middle row ({@code OLD} or {@code NEW} of a middle table's row trigger). */
    private static Rows under(String row) {
        return (c, sign) -> {
            String alias = ident(c.source().table());
            String value = value(c, alias, sign);
            return "SELECT " + named(c) + c.id() + " AS c, " + row + "." + ident(c.via().fk()) + " AS k, " + value + " AS d FROM "
                    + c.source().sql() + " AS " + alias + " WHERE " + alias + "." + ident(c.sourceFk()) + " = " + row + "."
                    + ident(c.via().key()) + " AND " + row + "." + ident(c.via().fk()) + " IS NOT NULL"
                    + (c.condition() == null ? "" : " AND (" + c.condition() + ")");
        };
    }

    /**
     * A comment that names the counter, so that an error in its {@code where} or sum at run time (a division by zero,
     * an overflow) names it too: PostgreSQL's error context quotes the statement. Only plain characters of the name
     * are kept, so the comment cannot be closed (or nested) by it.
     */
    private static String named(CounterDefinition c) {
        return "/* @CounterCache on " + c.declaredBy().replaceAll("[^A-Za-z0-9_.$, ]", "_") + " */ ";
    }

    /** One source row's contribution (row alias {@code alias}) with this sign: 1, or its sum column in units. */
    private static String value(CounterDefinition c, String alias, String sign) {
        return sign + (c.sumColumn() == null ? "1" : units(c, alias + "." + ident(c.sumColumn())));
    }

    /** A value of the counter's kind as the queue holds it: a bigint, in units of 10^-scale for a numeric sum. */
    private static String units(CounterDefinition c, String value) {
        return c.scale() == 0 ? "coalesce(" + value + ", 0)::bigint"
                : "(coalesce(" + value + ", 0) * " + BigDecimal.ONE.movePointRight(c.scale()).toPlainString() + ")::bigint";
    }

    /** A queued amount (bigint units) as a value of the counter column's kind. */
    private static String amount(CounterDefinition c, String units) {
        return c.scale() == 0 ? units : units + " * " + BigDecimal.ONE.movePointLeft(c.scale()).toPlainString();
    }

    /**
     * Before a capture reads middle rows, it locks the ones its rows point at FOR KEY SHARE (as their foreign key
     * check does for new rows), one statement before the one that reads them, so that the read sees a middle row's
     * latest committed version: a transaction that moves a middle row holds it FOR UPDATE until it commits, and has
     * counted the source rows it could see. See docs/architecture.md, "Counters along a path".
     */
    private static String lockVias(List<CounterDefinition> defs, String rows) {
        Map<String, CounterDefinition> links = new TreeMap<>();
        for (CounterDefinition c : defs) {
            if (c.via() != null) {
                links.putIfAbsent(c.via().table() + "\u0000" + c.via().key() + "\u0000" + c.sourceFk(), c);
            }
        }
        StringBuilder out = new StringBuilder();
        for (CounterDefinition c : links.values()) {
            String key = "v." + ident(c.via().key());
            out.append("        PERFORM FROM ").append(c.via().table().sql()).append(" v WHERE ").append(key)
                    .append(" IN (SELECT x.").append(ident(c.sourceFk())).append(" FROM ").append(rows).append(" x)")
                    .append("\n            ORDER BY ").append(key).append(" FOR KEY SHARE OF v;\n");
        }
        return out.toString();
    }

    /**
     * A middle table's row triggers: a row whose key or target link changes (or that is deleted) moves the counts of
     * the source rows under it, counted BEFORE the change (and before any cascade to the source rows, whose own
     * capture then finds the row changed). The row is first locked FOR UPDATE, which waits for every writer that
     * holds it FOR KEY SHARE (a capture, a foreign key check) and makes later ones wait until commit.
     */
    private static String viaSql(String changelog, TableName via, List<CounterDefinition> defs) {
        String fn = "countercache." + ident(triggerFunction("via_", via));
        String key = ident(defs.get(0).via().key());
        java.util.Set<String> columns = new java.util.LinkedHashSet<>();   // the key, then each link
        columns.add(defs.get(0).via().key());
        defs.stream().map(c -> c.via().fk()).sorted().forEach(columns::add);
        String moved = "moving a row of " + via + " (" + declarers(defs) + ")";
        String body = "#variable_conflict use_column\n" + declarations(defs) + "BEGIN\n"
                + "    PERFORM countercache.require_read_committed(" + literal(moved) + ",\n"
                + "        'change the key or the link of a middle row, or delete it, in a READ COMMITTED transaction');\n"
                + "    IF TG_OP = 'UPDATE' THEN\n"
                + "        PERFORM FROM " + via.sql() + " v WHERE v." + key + " = OLD." + key + " FOR UPDATE OF v;\n"
                + capture(defs, under("NEW"), under("OLD"))
                + "        RETURN NEW;\n"
                + "    END IF;\n"
                + capture(defs, null, under("OLD"))
                + "    RETURN OLD;\nEND\n";
        StringBuilder sql = new StringBuilder(oneChangelogPerTable(changelog, "via", via, defs));
        sql.append(triggerFunctionSql(fn, "via", via, body));
        String changedWhen = columns.stream().map(col -> "OLD." + ident(col) + " IS DISTINCT FROM NEW." + ident(col))
                .collect(Collectors.joining(" OR "));
        sql.append("CREATE OR REPLACE TRIGGER ").append(VIA_TRIGGERS.get(0)).append(" BEFORE UPDATE OF ")
                .append(columns.stream().map(Sql::ident).collect(Collectors.joining(", ")))
                .append(" ON ").append(via.sql()).append("\n    FOR EACH ROW WHEN (").append(changedWhen)
                .append(") EXECUTE FUNCTION ").append(fn).append("();\n");
        sql.append("CREATE OR REPLACE TRIGGER ").append(VIA_TRIGGERS.get(1)).append(" BEFORE DELETE ON ").append(via.sql())
                .append("\n    FOR EACH ROW EXECUTE FUNCTION ").append(fn).append("();\n");
        return sql.toString();
    }

    private static String trigger(String name, String event, String referencing, TableName source, String fn) {
        return "CREATE OR REPLACE TRIGGER " + name + " " + event + " ON " + source.sql()
                + (referencing == null ? "" : "\n    " + referencing)
                + "\n    FOR EACH STATEMENT EXECUTE FUNCTION " + fn + "();\n";
    }
}
