package io.countercache.spi;

import io.countercache.CounterCacheException;
import io.countercache.Strategy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * One counter in physical terms: which column of which table counts which rows of which source table. This is what
 * an integration (Hibernate, a CLI) hands to {@link Installation}; it holds names exactly as PostgreSQL stores them.
 *
 * @param declaredBy  who declared it, for messages: {@code Article.totalPublicComments}
 * @param target      the table that holds the counter column
 * @param targetKey   the target's primary key column
 * @param keyType     the type of that key
 * @param column      the counter column
 * @param columnType  the SQL type used when the column has to be added: {@code bigint}, {@code integer}, or
 *                    {@code numeric(p,s)} for a sum of numbers with s decimal places (kept exactly, as integers
 *                    of 10<sup>-s</sup>, in the queue)
 * @param source      the table whose rows are counted
 * @param sourceFk    the source column that points at the target key (at the middle table's key, with a path)
 * @param condition   a boolean SQL expression over the source's columns, or {@code null} for every row; PostgreSQL
 *                    judges it when the counter is installed (one expression, boolean, over the source table)
 * @param sumColumn   the source column to add up, or {@code null} to count rows
 * @param strategy    how writes reach the column (never {@link Strategy#DEFAULT}: the integration resolves it)
 * @param slots       for {@link Strategy#SLOTTED}, the number of slot rows per target (2 to 1024); 0 otherwise
 * @param via         the middle table of a path from the source to the target, or {@code null} when the source
 *                    points straight at the target
 * @param extreme     for a counter that keeps the least or greatest value of a source column instead of a count or a
 *                    sum, which and of what column; {@code null} otherwise
 * @param distinctColumn for a count of distinct values, the source column whose values are counted once per target
 *                    ({@code creator_id}); {@code null} otherwise
 * @param touchColumn a timestamp column of the target that every update changing this counter sets to
 *                    {@code now()} ({@code updated_at}), or {@code null}
 * @param bucket      for a counter kept per parent and period in rows of their own, how the rows are keyed; the
 *                    target is then the bucket table, {@code targetKey} the key column the library adds to it
 *                    ({@link Bucket#KEY_COLUMN}) and {@code keyType} {@link KeyType#UUID}; {@code null} otherwise
 * @param moreFks     further source columns that point at the target key like {@code sourceFk}, each feeding the
 *                    counter: a row counts once for each of them (a game for both its players); empty for most
 * @param pair        for a target whose key has two columns, those columns and the source's that point at them; the
 *                    target key is then the column the library adds ({@link Pair#KEY_COLUMN}), {@code keyType}
 *                    {@link KeyType#UUID} and {@code sourceFk} the first of the source's; {@code null} otherwise
 * @param moreTables  further tables of the source's schema whose rows the counter counts like {@code source}'s, with
 *                    the same columns (the concrete classes of a {@code TABLE_PER_CLASS} hierarchy); empty for most
 */
public record CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType,
                                String column, String columnType, TableName source, String sourceFk,
                                String condition, String sumColumn, Strategy strategy, int slots, Via via,
                                Extreme extreme, String distinctColumn, String touchColumn, Bucket bucket,
                                List<String> moreFks, Pair pair, List<String> moreTables) {

    /**
     * The key of a target whose rows are keyed by two columns ({@code (tenant_id, id)}): its {@code targetColumns} and
     * the source's {@code sourceColumns} that point at them, in the same order. The library keeps the two parts as one
     * uuid, a generated column of the target ({@link #KEY_COLUMN}) with a unique index, which the queue names the row
     * by: two integers packed, the first part in the high 64 bits and the second in the low 64; a uuid or text part
     * hashed with the other ({@link #key(Object, Object)}).
     */
    public record Pair(List<String> targetColumns, List<String> sourceColumns) {

        /** The column the library adds to the target: its two key columns packed into one uuid, generated. */
        public static final String KEY_COLUMN = Bucket.KEY_COLUMN;

        public Pair {
            targetColumns = List.copyOf(targetColumns);
            sourceColumns = List.copyOf(sourceColumns);
            if (targetColumns.size() != 2 || sourceColumns.size() != 2) {
                throw new IllegalArgumentException("a key of two parts has two target columns and two source columns,"
                        + " not " + targetColumns + " and " + sourceColumns);
            }
        }

        /** The key of the row whose two key columns hold these values, as {@code countercache.pair_key} packs it. */
        public static java.util.UUID key(long first, long second) {
            return new java.util.UUID(first, second);
        }

        /**
         * The key of the row whose two key columns hold these values ({@code Long}, {@code Integer}, {@code UUID} or
         * {@code String}): packed when both are integers, else as {@code countercache.digest_key} hashes their text
         * forms (each {@code \} and {@code /} of a part escaped by a {@code \}, in UTF-8).
         */
        public static java.util.UUID key(Object first, Object second) {
            if (first instanceof Number a && second instanceof Number b) {
                return key(a.longValue(), b.longValue());
            }
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest((escaped(first) + "/" + escaped(second))
                        .getBytes(StandardCharsets.UTF_8));
                java.nio.ByteBuffer bits = java.nio.ByteBuffer.wrap(digest);
                return new java.util.UUID(bits.getLong(), bits.getLong());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JVM", e);
            }
        }

        private static String escaped(Object part) {
            return part.toString().replace("\\", "\\\\").replace("/", "\\/");
        }
    }

    /**
     * How a counter per bucket keys its rows: a source row counts for the row of its parent ({@code sourceFk}, held
     * in the bucket table's {@code parentColumn}) and of the period of {@code period} ({@code "1 day"}, a PostgreSQL
     * interval of whole units), aligned in {@code zone}, that holds its {@code sourceColumn}; the period's start is
     * in the bucket table's {@code startColumn}. The workers drop buckets older than {@code retention} periods before
     * the current one (0: none).
     */
    public record Bucket(String sourceColumn, String period, String zone, String parentColumn, String startColumn,
                         int retention) {

        /** The column the library adds to a bucket table: its parent and start packed into one uuid, generated. */
        public static final String KEY_COLUMN = "countercache_key";

        public Bucket {
            Objects.requireNonNull(sourceColumn, "sourceColumn");
            Objects.requireNonNull(period, "period");
            Objects.requireNonNull(zone, "zone");
            Objects.requireNonNull(parentColumn, "parentColumn");
            Objects.requireNonNull(startColumn, "startColumn");
            if (retention < 0) {
                throw new IllegalArgumentException("retention must be 0 (keep every bucket) or more, not " + retention);
            }
        }

        /**
         * The key of a parent's bucket that starts this many seconds after the epoch (a date's midnight and a
         * timestamp's wall time read as UTC), as {@code countercache.bucket_key} packs it: the parent in the high 64
         * bits, the seconds in the low 64.
         */
        public static java.util.UUID key(long parent, long epochSecond) {
            return Pair.key(parent, epochSecond);
        }

        /** Buckets kept forever. */
        public Bucket(String sourceColumn, String period, String zone, String parentColumn, String startColumn) {
            this(sourceColumn, period, zone, parentColumn, startColumn, 0);
        }
    }

    /**
     * A min or max counter's aggregate: the least ({@code min}) or greatest ({@code max}) value of {@code column}
     * over the source rows that count, NULL when none does.
     */
    public record Extreme(String function, String column) {

        /**
         * The function of a count recomputed like an extreme: the source rows that count for a key, by the source's
         * own key ({@code column}), into a target whose key need not be unique. The Hibernate integration keeps one per
         * link of a many-to-many whose where reads the far entity.
         */
        public static final String COUNT = "count";

        public Extreme {
            if (!"min".equals(function) && !"max".equals(function) && !COUNT.equals(function)) {
                throw new IllegalArgumentException("an extreme is min or max (or a recomputed count), not " + function);
            }
            Objects.requireNonNull(column, "column");
        }
    }

    /** The most slot rows a slotted counter may spread one target over. */
    public static final int MAX_SLOTS = 1024;

    private static final Pattern NUMERIC = Pattern.compile("numeric\\((\\d{1,4}),(\\d{1,4})\\)");

    /** A counter fed by one foreign key. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via, Extreme extreme, String distinctColumn,
                             String touchColumn, Bucket bucket) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, List.of(), null);
    }

    /** A counter of one source table. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via, Extreme extreme, String distinctColumn,
                             String touchColumn, Bucket bucket, List<String> moreFks, Pair pair) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, moreFks, pair, List.of());
    }

    /** A counter of a row that exists already (no bucket). */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via, Extreme extreme, String distinctColumn,
                             String touchColumn) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, extreme, distinctColumn, touchColumn, null);
    }

    /** A count, a sum, a min, a max or a count of distinct values, touching nothing. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via, Extreme extreme, String distinctColumn) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, extreme, distinctColumn, null);
    }

    /** A count, a sum, a min or a max. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via, Extreme extreme) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, extreme, null);
    }

    /** A count or a sum. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots, Via via) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, via, null);
    }

    /** A counter whose source points straight at its target. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn,
                             Strategy strategy, int slots) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                strategy, slots, null);
    }

    /** A counter of the default strategy, {@link Strategy#QUEUE}. */
    public CounterDefinition(String declaredBy, TableName target, String targetKey, KeyType keyType, String column,
                             String columnType, TableName source, String sourceFk, String condition, String sumColumn) {
        this(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk, condition, sumColumn,
                Strategy.QUEUE, 0);
    }

    public CounterDefinition {
        Objects.requireNonNull(declaredBy, "declaredBy");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(targetKey, "targetKey");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(column, "column");
        Objects.requireNonNull(columnType, "columnType");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(sourceFk, "sourceFk");
        moreFks = moreFks == null ? List.of() : List.copyOf(moreFks);
        moreTables = moreTables == null ? List.of() : List.copyOf(moreTables);
        if (!moreTables.isEmpty() && (via != null || extreme != null || distinctColumn != null || bucket != null
                || pair != null)) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": several tables can feed a count or a"
                    + " sum of their own rows only; count along a path, per bucket, into a target keyed by two"
                    + " columns, a min, a max or distinct values of one table (declare a counter per concrete class)");
        }
        if (pair != null && (via != null || extreme != null || distinctColumn != null || bucket != null
                || !moreFks.isEmpty())) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": a counter of a target keyed by two"
                    + " columns counts or sums the rows of a source that points straight at it, through one"
                    + " association; leave out min, max, distinct and bucket, and name one many-to-one with via");
        }
        if (!moreFks.isEmpty() && (via != null || extreme != null || distinctColumn != null || bucket != null)) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": several associations can feed a count"
                    + " or a sum of the source's own rows only; count along a path, per bucket, a min, a max or"
                    + " distinct values through one association");
        }
        if (condition != null && condition.isBlank()) {
            condition = null;
        }
        if (sumColumn != null && sumColumn.isBlank()) {
            sumColumn = null;
        }
        Objects.requireNonNull(strategy, "strategy");
        if (strategy == Strategy.DEFAULT) {
            throw new IllegalArgumentException(declaredBy + ": resolve Strategy.DEFAULT before defining the counter");
        }
        checkSlots(declaredBy, strategy, slots);
        if (strategy != Strategy.SLOTTED) {
            slots = 0;
        }
        if (distinctColumn != null && distinctColumn.isBlank()) {
            distinctColumn = null;
        }
        if (touchColumn != null && touchColumn.isBlank()) {
            touchColumn = null;
        }
        if ((extreme != null ? 1 : 0) + (sumColumn != null ? 1 : 0) + (distinctColumn != null ? 1 : 0) > 1) {
            throw new CounterCacheException("@CounterCache on " + declaredBy
                    + ": declare one of sum, min, max and distinct");
        }
        if (extreme == null) {   // a min or max column has the type of its column, which the database checks
            columnType = columnType.replace(" ", "");
            checkCountOrSum(declaredBy, columnType, sumColumn);
        }
    }

    private static void checkCountOrSum(String declaredBy, String columnType, String sumColumn) {
        Matcher numeric = NUMERIC.matcher(columnType);
        if (!columnType.equals("bigint") && !columnType.equals("integer") && !numeric.matches()) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": column type " + columnType
                    + " is not supported; declare the field as long, int or BigDecimal");
        }
        if (numeric.matches() && (Integer.parseInt(numeric.group(2)) > 18
                || Integer.parseInt(numeric.group(2)) > Integer.parseInt(numeric.group(1)))) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": column type " + columnType
                    + " has a scale the queue cannot hold exactly; give the column a scale of at most 18"
                    + " (and no more than its precision)");
        }
        if (numeric.matches() && sumColumn == null) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": a " + columnType
                    + " counter must sum a column; count rows into a long or int field, or name the column with sum");
        }
    }

    /**
     * The decimal places of the counter: its amounts travel through the queue as integers of 10<sup>-scale</sup>
     * (cents, for 2), so a sum of {@code numeric} values is exact. 0 for {@code bigint} and {@code integer}.
     */
    public int scale() {
        if (extreme != null) {
            return 0;
        }
        Matcher numeric = NUMERIC.matcher(columnType);
        return numeric.matches() ? Integer.parseInt(numeric.group(2)) : 0;
    }

    /** Refuses a slotted counter whose slot count is out of range, naming the field. */
    public static void checkSlots(String declaredBy, Strategy strategy, int slots) {
        if (strategy == Strategy.SLOTTED && (slots < 2 || slots > MAX_SLOTS)) {
            throw new CounterCacheException("@CounterCache on " + declaredBy + ": slots = " + slots
                    + " must be between 2 and " + MAX_SLOTS + " for strategy SLOTTED");
        }
    }

    /** This counter with another strategy (and slot count, for {@link Strategy#SLOTTED}). */
    public CounterDefinition withStrategy(Strategy strategy, int slots) {
        return new CounterDefinition(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk,
                condition, sumColumn, strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, moreFks, pair,
                moreTables);
    }

    /**
     * This counter fed by more foreign keys of its source besides {@link #sourceFk()}: a source row counts once for
     * each of them that points at a target ({@code via = {"challenger", "opponent"}}).
     */
    public CounterDefinition withMoreFks(List<String> moreFks) {
        return new CounterDefinition(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk,
                condition, sumColumn, strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, moreFks, pair,
                moreTables);
    }

    /**
     * This counter fed by more tables of its source's schema besides {@link #source()}, with the same columns: the rows
     * of each count as the source's do (the concrete classes of a {@code TABLE_PER_CLASS} hierarchy).
     */
    public CounterDefinition withMoreTables(List<String> moreTables) {
        return new CounterDefinition(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk,
                condition, sumColumn, strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, moreFks, pair,
                moreTables);
    }

    /** This counter, touching a timestamp column of its target whenever it changes (or nothing, for null). */
    public CounterDefinition withTouch(String touchColumn) {
        return new CounterDefinition(declaredBy, target, targetKey, keyType, column, columnType, source, sourceFk,
                condition, sumColumn, strategy, slots, via, extreme, distinctColumn, touchColumn, bucket, moreFks, pair,
                moreTables);
    }

    /**
     * This counter kept per parent and period in rows of the bucket table {@code table} (its target key becomes the
     * key column the library adds, {@link Bucket#KEY_COLUMN}).
     */
    public CounterDefinition withBucket(TableName table, Bucket bucket) {
        return new CounterDefinition(declaredBy, table, Bucket.KEY_COLUMN, KeyType.UUID, column, columnType, source,
                sourceFk, condition, sumColumn, strategy, slots, via, extreme, distinctColumn, touchColumn, bucket,
                moreFks, pair, moreTables);
    }

    /**
     * This counter of a target keyed by two columns (its target key becomes the key column the library adds,
     * {@link Pair#KEY_COLUMN}, and its foreign key the first of the source's two columns).
     */
    public CounterDefinition withPair(Pair pair) {
        return new CounterDefinition(declaredBy, target, Pair.KEY_COLUMN, KeyType.UUID, column, columnType, source,
                pair.sourceColumns().get(0), condition, sumColumn, strategy, slots, via, extreme, distinctColumn,
                touchColumn, bucket, moreFks, pair, moreTables);
    }

    /**
     * The counter as its row of the catalog, column by column, for
     * {@code countercache.define_counter}: a new attribute of a counter is a field here, a column of the catalog (an
     * upgrade script) and its use in the SQL subsystem it changes.
     */
    public Map<String, Object> catalogRow() {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id());
        row.put("name", name());
        row.put("declared_by", declaredBy);
        row.put("target_schema", target.schema());
        row.put("target_table", target.table());
        row.put("target_key", targetKey);
        row.put("key_type", keyType.sqlName());
        row.put("target_column", column);
        row.put("column_type", columnType);
        row.put("source_schema", source.schema());
        row.put("source_table", source.table());
        row.put("source_fk", sourceFk);
        row.put("condition", condition);
        row.put("sum_column", sumColumn);
        row.put("scale", scale());
        row.put("strategy", strategy.sqlName());
        row.put("slots", slots);
        row.put("via_schema", via == null ? null : via.table().schema());
        row.put("via_table", via == null ? null : via.table().table());
        row.put("via_key", via == null ? null : via.key());
        row.put("via_key_type", via == null ? null : via.keyType().sqlName());
        row.put("via_fk", via == null ? null : via.fk());
        row.put("aggregate", extreme == null ? null : extreme.function());
        row.put("aggregate_column", extreme == null ? null : extreme.column());
        row.put("distinct_column", distinctColumn);
        row.put("touch_column", touchColumn);
        row.put("bucket_source", bucket == null ? null : bucket.sourceColumn());
        row.put("bucket_period", bucket == null ? null : bucket.period());
        row.put("bucket_zone", bucket == null ? null : bucket.zone());
        row.put("bucket_parent", bucket == null ? null : bucket.parentColumn());
        row.put("bucket_column", bucket == null ? null : bucket.startColumn());
        row.put("bucket_retention", bucket == null || bucket.retention() == 0 ? null : bucket.retention());
        row.put("more_fks", moreFks.isEmpty() ? null : moreFks);
        row.put("target_parts", pair == null ? null : pair.targetColumns());
        row.put("source_parts", pair == null ? null : pair.sourceColumns());
        row.put("more_tables", moreTables.isEmpty() ? null : moreTables);
        row.put("definition_hash", definitionHash());
        return row;
    }

    /** The counter's unique name: the qualified counter column, {@code public.blog_article.total_comments}. */
    public String name() {
        return target + "." + column;
    }

    /** A stable id derived from {@link #name()}; queue rows refer to the counter by it. */
    public int id() {
        CRC32 crc = new CRC32();
        crc.update(name().getBytes(StandardCharsets.UTF_8));
        int id = (int) (crc.getValue() & 0x7fffffffL);
        return id == 0 ? 1 : id;
    }

    /**
     * A digest of everything that decides the counter's value and how it is kept; a change means it must be
     * recounted (a change of strategy too: a crash may have emptied an unlogged queue just before).
     */
    public String definitionHash() {
        String canonical = String.join("\u0001", target.schema(), target.table(), targetKey, keyType.sqlName(),
                column, source.schema(), source.table(), sourceFk, String.valueOf(condition), String.valueOf(sumColumn));
        if (strategy != Strategy.QUEUE) {   // a queue counter keeps the digest it had before strategies existed
            canonical += "\u0001" + strategy.sqlName() + "\u0001" + slots;
        }
        if (via != null) {
            canonical += "\u0001via\u0001" + via.table().schema() + "\u0001" + via.table().table() + "\u0001"
                    + via.key() + "\u0001" + via.keyType().sqlName() + "\u0001" + via.fk();
        }
        if (scale() > 0) {
            canonical += "\u0001scale\u0001" + scale();
        }
        if (extreme != null) {
            canonical += "\u0001" + extreme.function() + "\u0001" + extreme.column();
        }
        if (distinctColumn != null) {
            canonical += "\u0001distinct\u0001" + distinctColumn;
        }
        if (touchColumn != null) {
            canonical += "\u0001touch\u0001" + touchColumn;
        }
        if (bucket != null) {
            canonical += "\u0001bucket\u0001" + bucket.sourceColumn() + "\u0001" + bucket.period() + "\u0001"
                    + bucket.zone() + "\u0001" + bucket.parentColumn() + "\u0001" + bucket.startColumn()
                    + (bucket.retention() == 0 ? "" : "\u0001" + bucket.retention());
        }
        if (!moreFks.isEmpty()) {
            canonical += "\u0001more_fks\u0001" + String.join("\u0001", moreFks);
        }
        if (!moreTables.isEmpty()) {
            canonical += "\u0001more_tables\u0001" + String.join("\u0001", moreTables);
        }
        if (pair != null) {
            canonical += "\u0001pair\u0001" + String.join("\u0001", pair.targetColumns()) + "\u0001"
                    + String.join("\u0001", pair.sourceColumns());
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
