package io.countercache.hibernate.internal;

import io.countercache.CounterCache;
import io.countercache.CounterCacheException;
import io.countercache.CounterLimit;
import io.countercache.Strategy;
import io.countercache.hibernate.CounterCacheSettings;
import io.countercache.spi.LimitDefinition;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.spi.Via;
import org.hibernate.MappingException;
import org.hibernate.annotations.SoftDeleteType;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.model.naming.Identifier;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.mapping.BasicValue;
import org.hibernate.mapping.Column;
import org.hibernate.mapping.Component;
import org.hibernate.mapping.ManyToOne;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.Selectable;
import org.hibernate.mapping.SingleTableSubclass;
import org.hibernate.mapping.Table;
import org.hibernate.mapping.UnionSubclass;
import org.hibernate.mapping.Value;
import org.hibernate.type.descriptor.converter.spi.BasicValueConverter;

import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.zip.CRC32;
import java.util.stream.Collectors;

/**
 * Reads {@link CounterCache} declarations from Hibernate's boot metamodel and resolves them to physical names,
 * exactly as Hibernate maps them (naming strategies, {@code @Table}, {@code @Column}, {@code @JoinColumn}, schemas,
 * quoted identifiers). Every problem in the model is reported at once, each naming {@code Entity.field} and the fix.
 */
public final class CounterModel {

    /**
     * One declaration: the physical definition, the entity whose table holds it and the property that holds it (none
     * for a level of a path counter, a column of the library's).
     */
    record Declared(CounterDefinition definition, PersistentClass entity, Property property) {
    }

    private CounterModel() {
    }

    /** The physical counter definitions of a boot metamodel, sorted by counter name. */
    public static List<CounterDefinition> definitions(Metadata metadata) {
        return read(metadata).stream().map(Declared::definition).toList();
    }

    /**
     * Builds Hibernate's boot metamodel for these entity classes without touching a database (PostgreSQL dialect)
     * and reads its counters. {@code settings} may carry naming strategies, a default schema and so on.
     */
    public static List<CounterDefinition> definitions(Collection<Class<?>> entities, Map<String, Object> settings) {
        return fromModel(entities, settings, CounterModel::definitions);
    }

    /** Reads Hibernate's boot metamodel for these entity classes, built as {@link #definitions} builds it. */
    public static <T> T fromModel(Collection<Class<?>> entities, Map<String, Object> settings,
                                  Function<Metadata, T> read) {
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                // PostgreSQL, named as a database would report it (naming the dialect class draws a warning)
                .applySetting("jakarta.persistence.database-product-name", "PostgreSQL")
                .applySetting("jakarta.persistence.database-major-version", "15")
                .applySetting("hibernate.boot.allow_jdbc_metadata_access", "false")
                .applySettings(settings)
                .build();
        try {
            MetadataSources sources = new MetadataSources(registry);
            entities.forEach(sources::addAnnotatedClass);
            return read.apply(sources.buildMetadata());
        } finally {
            StandardServiceRegistryBuilder.destroy(registry);
        }
    }

    /** Every declaration of the model, or one exception that lists every problem (its limits' too). */
    static List<Declared> read(Metadata metadata) {
        List<Declared> declared = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Object configured = metadata.getDatabase().getServiceRegistry().requireService(ConfigurationService.class)
                .getSettings().get(CounterCacheSettings.STRATEGY);
        Strategy strategy = configured == null ? Strategy.QUEUE
                : Strategy.of(configured.toString(), "setting " + CounterCacheSettings.STRATEGY);
        for (PersistentClass target : metadata.getEntityBindings()) {
            for (Field field : counterFields(target)) {
                try {
                    CounterCache cc = field.getAnnotation(CounterCache.class);
                    for (Declared d : declare(metadata, target, field, cc, strategy)) {
                        declared.add(cc.touch().isBlank() || d.property() == null ? d : new Declared(
                                d.definition().withTouch(touchColumn(d.definition().declaredBy(), target,
                                        cc.touch().trim(), field)), target, d.property()));
                    }
                } catch (CounterCacheException e) {
                    problems.add(e.getMessage());
                }
            }
            embeddedCounters(target, problems);
        }
        oneFarSidePerJoinTable(declared, problems);
        int counterProblems = problems.size();
        limits(metadata.getEntityBindings().stream().map(PersistentClass::getMappedClass).toList(), problems);
        fail(problems, counterProblems == problems.size() ? "@CounterCache"
                : counterProblems == 0 ? "@CounterLimit" : "@CounterCache and @CounterLimit");
        declared.sort(Comparator.comparing(d -> d.definition().name()));
        return declared;
    }

    /**
     * A join table keeps a where on its far side for one of its two columns only: the rollup updates a table's rows
     * once per round, by one key (a second key would update a link twice in a round, and its second update would
     * check the link's foreign keys, waiting for an application that holds a parent).
     */
    private static void oneFarSidePerJoinTable(List<Declared> declared, List<String> problems) {
        Map<TableName, CounterDefinition> first = new java.util.HashMap<>();
        declared.stream().map(Declared::definition)
                .filter(d -> d.extreme() != null && CounterDefinition.Extreme.COUNT.equals(d.extreme().function()))
                .sorted(Comparator.comparing(CounterDefinition::declaredBy)).forEach(d -> {
                    CounterDefinition other = first.putIfAbsent(d.target(), d);
                    if (other != null && !other.targetKey().equals(d.targetKey())) {
                        problems.add("@CounterCache on " + d.declaredBy().replace(" (per link)", "") + ": the links of "
                                + d.target() + " keep a where on their " + other.targetKey() + " side already (for "
                                + other.declaredBy().replace(" (per link)", "") + "), and a join table keeps one;"
                                + " count this side's links without where, or map the join table as an entity with"
                                + " two many-to-ones and count from it");
                    }
                });
    }

    /** The {@link CounterLimit}s on the model's entity classes, sorted by name. */
    public static List<LimitDefinition> limits(Metadata metadata) {
        return limits(metadata.getEntityBindings().stream().map(PersistentClass::getMappedClass).toList());
    }

    /** The {@link CounterLimit}s on these classes, sorted by name, or one exception that lists every bad one. */
    public static List<LimitDefinition> limits(Collection<Class<?>> classes) {
        List<String> problems = new ArrayList<>();
        List<LimitDefinition> limits = limits(classes, problems);
        fail(problems, "@CounterLimit");
        return limits;
    }

    /** The good {@link CounterLimit}s on these classes, sorted by name; the problems of the bad ones go to problems. */
    private static List<LimitDefinition> limits(Collection<Class<?>> classes, List<String> problems) {
        List<LimitDefinition> limits = new ArrayList<>();
        for (Class<?> k : classes) {
            for (CounterLimit l : k.getAnnotationsByType(CounterLimit.class)) {
                try {
                    limits.add(new LimitDefinition("@CounterLimit(name = \"" + l.name() + "\") on " + k.getSimpleName(),
                            l.name(), l.period(), l.limit(), l.timeZone(), l.retention()));
                } catch (CounterCacheException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        limits.sort(Comparator.comparing(LimitDefinition::name));
        return limits;
    }

    /** Throws one exception that lists every problem, if there is any. */
    private static void fail(List<String> problems, String what) {
        if (!problems.isEmpty()) {
            problems.sort(Comparator.naturalOrder());
            throw new CounterCacheException(problems.size() == 1 ? problems.get(0)
                    : problems.size() + " " + what + " problems:\n  - " + String.join("\n  - ", problems));
        }
    }

    /**
     * The tables the model maps, its entities' and its collections' (a join table holds a recomputed count per link):
     * counters installed on them must be declared by it.
     */
    public static Set<TableName> mappedTables(Metadata metadata) {
        Set<TableName> tables = new TreeSet<>();
        for (PersistentClass entity : metadata.getEntityBindings()) {
            tables.add(tableName(metadata, entity.getTable()));
        }
        for (org.hibernate.mapping.Collection collection : metadata.getCollectionBindings()) {
            tables.add(tableName(metadata, collection.getCollectionTable()));
        }
        return tables;
    }

    /**
     * Refuses a counter declared inside an embeddable the entity maps (at any depth): its column is the entity's, but
     * nothing would ever count into it, and Hibernate would write it as an ordinary column.
     */
    private static void embeddedCounters(PersistentClass entity, List<String> problems) {
        Deque<Map.Entry<String, Component>> todo = new ArrayDeque<>();
        for (Property p : entity.getDeclaredProperties()) {
            // not the copy of an @IdClass's attributes Hibernate adds (_identifierMapper), whose class is the entity's
            if (p.getValue() instanceof Component c && c.getComponentClass() != null && !p.isSynthetic()
                    && !c.getComponentClass().isAssignableFrom(entity.getMappedClass())) {
                todo.add(Map.entry(p.getName(), c));
            }
        }
        while (!todo.isEmpty()) {
            Map.Entry<String, Component> e = todo.poll();
            for (Class<?> k = e.getValue().getComponentClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (f.isAnnotationPresent(CounterCache.class)) {
                        problems.add("@CounterCache on " + simpleName(entity) + "." + e.getKey() + "." + f.getName()
                                + ": a counter inside an @Embeddable (" + k.getSimpleName() + ") is never counted;"
                                + " declare it on " + simpleName(entity) + " itself");
                    }
                }
            }
            for (Property p : e.getValue().getProperties()) {
                if (p.getValue() instanceof Component c && c.getComponentClass() != null) {
                    todo.add(Map.entry(e.getKey() + "." + p.getName(), c));
                }
            }
        }
    }

    /** Fields of the entity class and its mapped superclasses, stopping at the next entity up the hierarchy. */
    private static List<Field> counterFields(PersistentClass entity) {
        Class<?> stop = entity.getSuperclass() == null ? Object.class : entity.getSuperclass().getMappedClass();
        List<Field> fields = new ArrayList<>();
        for (Class<?> k = entity.getMappedClass(); k != null && k != stop && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.isAnnotationPresent(CounterCache.class)) {
                    fields.add(f);
                }
            }
        }
        return fields;
    }

    /** Refuses an attribute that nothing reads for this counter, which the user would expect to act. */
    private static void unread(String who, CounterCache cc, Strategy strategy) {
        if (strategy != Strategy.SLOTTED && cc.slots() != defaultOf("slots", Integer.class)) {
            throw fail(who, "slots = " + cc.slots() + " is read by strategy SLOTTED only, and this counter's strategy"
                    + " is " + strategy + "; remove slots, or set strategy = Strategy.SLOTTED");
        }
        if (cc.bucket().isBlank() && cc.period().isBlank()) {
            if (!cc.zone().equals(defaultOf("zone", String.class))) {
                throw fail(who, "zone = \"" + cc.zone() + "\" is read by a counter per bucket only; remove zone, or"
                        + " name bucket and period");
            }
            if (cc.retention() != defaultOf("retention", Integer.class)) {
                throw fail(who, "retention = " + cc.retention() + " is read by a counter per bucket only; remove"
                        + " retention, or name bucket and period");
            }
        }
    }

    private static <T> T defaultOf(String attribute, Class<T> type) {
        try {
            return type.cast(CounterCache.class.getMethod(attribute).getDefaultValue());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The counters one field declares: its own, and for a count or sum along a path the levels beneath it (see
     * {@link #levels}), which have no field.
     */
    private static List<Declared> declare(Metadata metadata, PersistentClass target, Field field, CounterCache cc,
                                          Strategy defaultStrategy) {
        String who = simpleName(target) + "." + field.getName();
        Strategy strategy = cc.strategy() == Strategy.DEFAULT ? defaultStrategy : cc.strategy();
        CounterDefinition.checkSlots(who, strategy, cc.slots());   // before the other checks, so it is always reported
        unread(who, cc, strategy);
        Property counter;
        try {
            counter = target.getProperty(field.getName());
        } catch (MappingException e) {
            throw fail(who, "the field is not persistent; remove @Transient so it maps to a column");
        }
        if (perClassTables(target)) {   // its subclasses' rows are in tables of their own, without this column's counts
            throw fail(who, simpleName(target) + " is a TABLE_PER_CLASS class with subclasses, whose instances live in"
                    + " one table per concrete class, and a counter fills the column of one table; declare the counter"
                    + " on each concrete class, or map the hierarchy SINGLE_TABLE or JOINED");
        }
        String extreme = extremeFunction(who, cc);
        String columnType = extreme != null ? extremeType(who, metadata, field, counter, strategy)
                : field.getType() == BigDecimal.class ? decimalType(who, singleColumn(who, counter))
                : columnType(field.getType());
        if (columnType == null) {
            throw fail(who, "the field is " + field.getType().getSimpleName() + "; declare it as long or int"
                    + " (or BigDecimal, for the sum of a numeric column)");
        }
        if (extreme == null && field.getType() == BigDecimal.class && cc.sum().isBlank()) {
            throw fail(who, "a BigDecimal counter adds up a numeric column; name it with sum, or count rows into a"
                    + " long field");
        }
        if (!cc.bucket().isBlank() || !cc.period().isBlank()) {
            return List.of(new Declared(bucketCounter(metadata, target, who, cc, counter, columnType, extreme,
                    strategy), target, counter));
        }
        if (target.getIdentifierMapper() != null || target.getIdentifier() instanceof Component
                || target.getIdentifier().getColumnSpan() != 1) {
            return List.of(new Declared(pairCounter(metadata, target, who, cc, counter, columnType, extreme, strategy),
                    target, counter));
        }
        KeyType keyType = keyType(target.getIdentifierProperty().getType().getReturnedClass());
        if (keyType == null) {
            throw fail(who, simpleName(target) + "'s identifier is "
                    + target.getIdentifierProperty().getType().getReturnedClass().getSimpleName()
                    + "; counters need a Long, Integer or UUID identifier");
        }
        String kind = extreme != null ? "a " + extreme : cc.distinct().isBlank() ? null : "a count of distinct values";
        if (!cc.collection().isBlank() && kind != null) {
            throw fail(who, kind + " of a collection is not supported yet; declare it with source and via"
                    + " (a many-to-one of the element pointing back at " + simpleName(target) + ")");
        }
        if (!cc.distinct().isBlank() && strategy != Strategy.QUEUE) {
            throw fail(who, "strategy " + strategy + " cannot keep a count of distinct values: its values travel"
                    + " through a queue of their own, which only the queue feeds; use strategy QUEUE");
        }
        if (!cc.collection().isBlank()) {
            return collectionCounter(metadata, target, who, cc, counter, columnType, keyType, strategy);
        }
        if (cc.source() == void.class || via(cc).isBlank()) {
            throw fail(who, "name what is counted: source and via (source = Comment.class, via = \"article\"), or a"
                    + " collection of " + simpleName(target) + " (collection = \"comments\")");
        }
        PersistentClass source = metadata.getEntityBinding(cc.source().getName());
        if (source == null) {
            throw fail(who, "source = " + cc.source().getSimpleName() + ".class is not an entity of this persistence"
                    + " unit; annotate it with @Entity and list it with the others");
        }
        if (cc.via().length > 1) {
            return List.of(new Declared(fedCounter(metadata, target, who, cc, source, counter, columnType, keyType,
                    strategy, kind), target, counter));
        }
        org.hibernate.mapping.Collection links = manyToMany(source, via(cc), target);
        if (links != null) {
            return linkCounter(metadata, target, who, cc, source, links, counter, columnType, keyType, strategy);
        }
        String sum = cc.sum().isBlank() ? null : sumColumn(who, source, cc.sum().trim(), counter);
        CounterDefinition.Extreme aggregate = extreme == null ? null
                : new CounterDefinition.Extreme(extreme, extremeColumn(who, source, extreme,
                        (extreme.equals("min") ? cc.min() : cc.max()).trim(), field));
        String distinct = cc.distinct().isBlank() ? null : distinctColumn(who, source, cc.distinct().trim());
        String[] path = via(cc).split("\\.", -1);
        if (extreme != null && path.length > 1) {
            throw fail(who, "a " + extreme + " along a path is not supported; keep it on " + path[0]
                    + "'s entity, straight from the source (via = \"" + path[path.length - 1] + "\" there)");
        }
        boolean perClass = perClassTables(source);
        if (perClass && (extreme != null || distinct != null || path.length > 1)) {
            throw fail(who, "source = " + simpleName(source) + " is a TABLE_PER_CLASS class with subclasses, whose"
                    + " instances live in one table per concrete class, which feed a count or a sum straight through"
                    + " a many-to-one only; declare " + (extreme != null ? "the " + extreme
                    : distinct != null ? "the count of distinct values" : "the path") + " on each concrete class, or"
                    + " map the hierarchy SINGLE_TABLE or JOINED");
        }
        String rows = perClass ? liveRows(who, source) : rowsOf(who, source);
        if (distinct == null && path.length > 1) {
            return levels(metadata, target, who, source, path, counter, columnType, keyType, strategy, cc.slots(),
                    and(rows, condition(cc.where())), sum);
        }
        if (path.length > 2) {
            throw fail(who, "via = \"" + via(cc) + "\" has " + path.length + " steps; a count of distinct values"
                    + " may have a path of two (\"article.blog\"): count along a longer one from a middle entity's own"
                    + " counter");
        }
        Column fk;
        Via via = null;
        if (path.length == 1) {
            fk = viaColumn(who, via(cc), source, path[0], target);
        } else {
            PersistentClass middle = middle(who, via(cc), metadata, source, path[0]);
            fk = viaColumn(who, via(cc), source, path[0], middle);
            via = new Via(tableName(metadata, middle.getTable()), columnName(middle.getKey().getColumns().get(0)),
                    keyType(middle.getIdentifierProperty().getType().getReturnedClass()),
                    columnName(viaColumn(who, via(cc), middle, path[1], target)));
        }
        List<TableName> tables = concreteTables(metadata, source);
        if (tables.isEmpty()) {
            throw fail(who, "source = " + simpleName(source) + " is an abstract TABLE_PER_CLASS class with no concrete"
                    + " subclass, so no table holds its instances; count a concrete class");
        }
        List<String> moreTables = new ArrayList<>();
        for (TableName t : tables.subList(1, tables.size())) {
            if (!t.schema().equals(tables.get(0).schema())) {
                throw fail(who, "source = " + simpleName(source) + "'s concrete classes have tables in the schemas "
                        + tables.get(0).schema() + " and " + t.schema() + "; one counter reads tables of one schema:"
                        + " put them in one schema, or count each concrete class into a counter of its own");
            }
            moreTables.add(t.table());
        }
        return List.of(new Declared(new CounterDefinition(who, tableName(metadata, target.getTable()),
                columnName(target.getKey().getColumns().get(0)), keyType,
                columnName(singleColumn(who, counter)), columnType, tables.get(0), columnName(fk),
                and(rows, condition(cc.where())),
                sum, strategy, cc.slots(), via, aggregate, distinct).withMoreTables(moreTables), target, counter));
    }

    /** Whether source's instances live in several tables: a TABLE_PER_CLASS class with subclasses. */
    private static boolean perClassTables(PersistentClass source) {
        return source.hasSubclasses() && source.getSubclasses().stream().anyMatch(k -> k instanceof UnionSubclass);
    }

    /**
     * The tables that hold source's instances: its own, and for a TABLE_PER_CLASS class with subclasses each concrete
     * class's (an abstract class has none), the class's own first. Inherited columns have the same names in each.
     */
    private static List<TableName> concreteTables(Metadata metadata, PersistentClass source) {
        List<TableName> tables = new ArrayList<>(List.of(tableName(metadata, source.getTable())));
        if (perClassTables(source)) {
            if (Boolean.TRUE.equals(source.isAbstract())) {
                tables.clear();
            }
            source.getSubclasses().stream().filter(k -> !Boolean.TRUE.equals(k.isAbstract()))
                    .map(k -> tableName(metadata, k.getTable())).sorted().forEach(tables::add);
        }
        return tables;
    }

    /** The entity a step of a path leads to from {@code from}, which needs a single-column identifier. */
    private static PersistentClass middle(String who, String via, Metadata metadata, PersistentClass from, String step) {
        ManyToOne m = manyToOne(who, via, from, step, null);
        PersistentClass middle = metadata.getEntityBinding(m.getReferencedEntityName());
        if (middle == null || middle.getKey().getColumnSpan() != 1
                || keyType(middle.getIdentifierProperty().getType().getReturnedClass()) == null) {
            throw fail(who, "via = \"" + via + "\" passes through " + m.getReferencedEntityName()
                    + ", which needs a single-column Long, Integer or UUID identifier");
        }
        return middle;
    }

    /**
     * A count or sum along a path of any length, counted level by level: each middle entity gets a counter column of
     * the library's ({@link #levelColumn}) that counts or sums the rows beneath it, as any counter of its own would,
     * and each level above sums the level beneath's column, up to the field's own. A move at any level is then an
     * ordinary reparent of a sum, so no writer locks a middle row; the top lags one rollup round per level. The
     * levels come first, the field's own counter last.
     */
    private static List<Declared> levels(Metadata metadata, PersistentClass target, String who, PersistentClass source,
                                         String[] path, Property counter, String columnType, KeyType keyType,
                                         Strategy strategy, int slots, String condition, String sum) {
        String via = String.join(".", path);
        TableName top = tableName(metadata, target.getTable());
        String column = columnName(singleColumn(who, counter));
        List<Declared> levels = new ArrayList<>();
        PersistentClass from = source;
        for (int i = 0; i < path.length; i++) {
            boolean last = i == path.length - 1;
            PersistentClass to = last ? target : middle(who, via, metadata, from, path[i]);
            String level = levelColumn(top, column, i + 1);
            levels.add(new Declared(new CounterDefinition(last ? who : who + " (per " + simpleName(to) + ")",
                    tableName(metadata, to.getTable()), columnName(to.getKey().getColumns().get(0)),
                    last ? keyType : keyType(to.getIdentifierProperty().getType().getReturnedClass()),
                    last ? column : level, columnType, tableName(metadata, from.getTable()),
                    columnName(viaColumn(who, via, from, path[i], to)), condition, sum, strategy, slots),
                    to, last ? counter : null));
            condition = rowsOf(who, to);
            sum = level;
            from = to;
        }
        return levels;
    }

    /**
     * The column of the library's that keeps level {@code n} (1 nearest the source) of the path counter
     * {@code top.column} on a middle table: {@code countercache_<top table>__<column>}, then {@code __<n>} above the
     * first level (a path may pass one table twice), shortened with a digest of the whole to PostgreSQL's 63 bytes.
     */
    static String levelColumn(TableName top, String column, int n) {
        String name = "countercache_" + top.table() + "__" + column + (n == 1 ? "" : "__" + n);
        if (name.getBytes(StandardCharsets.UTF_8).length <= 63) {
            return name;
        }
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        String shorter = name;
        while (shorter.getBytes(StandardCharsets.UTF_8).length > 54) {
            shorter = shorter.substring(0, shorter.length() - 1);
        }
        return shorter + "_" + String.format("%08x", crc.getValue());
    }

    /**
     * A counter fed by several many-to-ones of the source, each pointing at the target: a row counts once for each of
     * them that is set ({@code via = {"challenger", "opponent"}}). A count or a sum, straight from the source.
     */
    private static CounterDefinition fedCounter(Metadata metadata, PersistentClass target, String who, CounterCache cc,
                                                PersistentClass source, Property counter, String columnType,
                                                KeyType keyType, Strategy strategy, String kind) {
        String vias = "via = {\"" + String.join("\", \"", cc.via()) + "\"}";
        if (kind != null || Arrays.stream(cc.via()).anyMatch(v -> v.contains("."))) {
            throw fail(who, vias + ": several associations feed a count or a sum of the source's rows; count "
                    + (kind != null ? kind : "along a path") + " through one association");
        }
        List<String> columns = new ArrayList<>();
        for (String v : cc.via()) {
            String column = columnName(viaColumn(who, v.trim(), source, v.trim(), target));
            if (columns.contains(column)) {
                throw fail(who, vias + " names the column " + column + " twice; name each association once");
            }
            columns.add(column);
        }
        return new CounterDefinition(who, tableName(metadata, target.getTable()),
                columnName(target.getKey().getColumns().get(0)), keyType, columnName(singleColumn(who, counter)),
                columnType, tableName(metadata, source.getTable()), columns.get(0),
                and(rowsOf(who, source), condition(cc.where())),
                cc.sum().isBlank() ? null : sumColumn(who, source, cc.sum().trim(), counter), strategy, cc.slots())
                .withMoreFks(columns.subList(1, columns.size()));
    }

    /** The one association of via, blank when there is none (several are a counter of {@link #fedCounter}). */
    private static String via(CounterCache cc) {
        return cc.via().length == 0 ? "" : cc.via()[0];
    }

    /** The Java types of a bucket's start, in the bucket entity's identifier, and of the source's time. */
    private static final Set<Class<?>> BUCKET_TYPES = Set.of(java.time.LocalDate.class, java.time.LocalDateTime.class,
            java.time.Instant.class, java.time.OffsetDateTime.class, java.time.ZonedDateTime.class,
            java.util.Date.class, java.sql.Timestamp.class, java.sql.Date.class);

    /** A period of whole units of one kind, as PostgreSQL reads an interval. */
    private static final java.util.regex.Pattern PERIOD =
            java.util.regex.Pattern.compile("[1-9][0-9]{0,5} (second|minute|hour|day|week|month|year)s?");

    /**
     * A counter kept per parent and period in rows of the target, a bucket entity whose identifier is the parent (a
     * many-to-one to the entity that via points at, or that entity's key) and the period's start.
     */
    private static CounterDefinition bucketCounter(Metadata metadata, PersistentClass target, String who,
                                                   CounterCache cc, Property counter, String columnType,
                                                   String extreme, Strategy strategy) {
        String period = cc.period().trim().replaceAll("\\s+", " ");
        if (cc.bucket().isBlank() || period.isEmpty()) {
            throw fail(who, "a counter per bucket names both bucket, the source's time attribute, and period"
                    + " (bucket = \"createdAt\", period = \"1 day\")");
        }
        if (extreme != null || !cc.distinct().isBlank() || !cc.collection().isBlank()) {
            throw fail(who, "a counter per bucket counts or sums rows of a source; leave out min, max, distinct and"
                    + " collection");
        }
        if (strategy != Strategy.QUEUE && strategy != Strategy.UNLOGGED) {
            throw fail(who, "strategy " + strategy + " cannot keep a counter per bucket: the rollup creates the"
                    + " bucket rows, which no writer may wait on; use strategy QUEUE or UNLOGGED");
        }
        if (cc.retention() < 0) {
            throw fail(who, "retention = " + cc.retention() + " is negative; keep 0 (every bucket) or more periods");
        }
        if (!PERIOD.matcher(period).matches()) {
            throw fail(who, "period = \"" + cc.period() + "\" is not a whole number of one unit; write it as \"1 hour\","
                    + " \"15 minutes\", \"1 day\", \"1 week\" or \"1 month\"");
        }
        try {
            java.time.ZoneId.of(cc.zone().trim());
        } catch (java.time.DateTimeException e) {
            throw fail(who, "zone = \"" + cc.zone() + "\" is not a time zone; name one as \"UTC\" or \"Europe/Paris\"");
        }
        if (cc.via().length > 1) {
            throw fail(who, "a counter per bucket counts through one association (via = \"" + via(cc) + "\");"
                    + " declare one counter per association");
        }
        if (via(cc).contains(".")) {
            String first = via(cc).substring(0, via(cc).indexOf('.'));
            throw fail(who, "a counter per bucket counts through one many-to-one of the source, not along a path"
                    + " (via = \"" + via(cc) + "\"); keep the buckets of the first step (via = \"" + first + "\", on a"
                    + " bucket entity of " + first + "'s entity) and sum them along the path in a query, or give the"
                    + " source a many-to-one to the parent");
        }
        if (cc.source() == void.class || via(cc).isBlank()) {
            throw fail(who, "a counter per bucket names source and via, a many-to-one of the source pointing at the"
                    + " parent (source = Comment.class, via = \"article\")");
        }
        PersistentClass source = metadata.getEntityBinding(cc.source().getName());
        if (source == null) {
            throw fail(who, "source = " + cc.source().getSimpleName() + ".class is not an entity of this persistence"
                    + " unit; annotate it with @Entity and list it with the others");
        }
        PersistentClass parent = metadata.getEntityBinding(manyToOne(who, via(cc), source, via(cc), null)
                .getReferencedEntityName());
        KeyType parentKey = parent == null || parent.getKey().getColumnSpan() != 1 ? null
                : keyType(parent.getIdentifierProperty().getType().getReturnedClass());
        if (parentKey != KeyType.BIGINT && parentKey != KeyType.INTEGER) {
            throw fail(who, "via = \"" + via(cc) + "\" points at " + (parent == null ? "an entity" : simpleName(parent))
                    + ", whose identifier is not a Long or an Integer; a bucket's parent needs one");
        }
        Component id = target.getIdentifierMapper() != null ? target.getIdentifierMapper()
                : target.getIdentifier() instanceof Component c ? c : null;
        List<Property> parts = id == null ? List.of() : id.getProperties();
        Property start = parts.stream().filter(p -> BUCKET_TYPES.contains(p.getType().getReturnedClass())).findFirst()
                .orElse(null);
        Property up = parts.stream().filter(p -> p != start && (p.getValue() instanceof ManyToOne m
                        ? m.getReferencedEntityName().equals(parent.getEntityName())
                        : keyType(p.getType().getReturnedClass()) == parentKey)).findFirst().orElse(null);
        if (parts.size() != 2 || start == null || up == null) {
            throw fail(who, simpleName(target) + "'s identifier is not a parent and a period's start; give it two"
                    + " parts with @IdClass or @EmbeddedId: a many-to-one to " + simpleName(parent) + " (or its "
                    + parentKey.name().toLowerCase(Locale.ROOT) + " key) and a LocalDate, LocalDateTime, Instant or"
                    + " OffsetDateTime start");
        }
        String time = sourceColumn(who, source, "bucket", cc.bucket().trim(), p -> {
            if (!BUCKET_TYPES.contains(p.getType().getReturnedClass())) {
                throw fail(who, "bucket = \"" + cc.bucket() + "\" is " + p.getType().getReturnedClass().getSimpleName()
                        + "; bucket by a time attribute of " + simpleName(source) + " (Instant, OffsetDateTime,"
                        + " LocalDateTime or LocalDate)");
            }
        });
        String sum = cc.sum().isBlank() ? null : sumColumn(who, source, cc.sum().trim(), counter);
        TableName table = tableName(metadata, target.getTable());
        return new CounterDefinition(who, table, CounterDefinition.Bucket.KEY_COLUMN, KeyType.UUID,
                columnName(singleColumn(who, counter)), columnType, tableName(metadata, source.getTable()),
                columnName(viaColumn(who, via(cc), source, via(cc), parent)),
                and(rowsOf(who, source), condition(cc.where())), sum, strategy, 0)
                .withBucket(table, new CounterDefinition.Bucket(time, period, cc.zone().trim(),
                        columnName(singleColumn(who, up)), columnName(singleColumn(who, start)), cc.retention()));
    }

    /**
     * A count or sum of a target whose identifier is two Long, Integer, UUID or String columns (an @IdClass or
     * @EmbeddedId, as (tenant_id, id)), through a many-to-one of the source that joins on both: the library packs the
     * two into one key, or hashes them when one is not an integer (CounterDefinition.Pair).
     */
    private static CounterDefinition pairCounter(Metadata metadata, PersistentClass target, String who,
                                                 CounterCache cc, Property counter, String columnType, String extreme,
                                                 Strategy strategy) {
        Component id = target.getIdentifierMapper() != null ? target.getIdentifierMapper()
                : target.getIdentifier() instanceof Component c ? c : null;
        List<Property> parts = id == null ? List.of() : id.getProperties();
        if (target.getKey().getColumnSpan() != 2 || parts.size() != 2 || parts.stream().anyMatch(p ->
                p.getValue().getColumnSpan() != 1 || (keyType(p.getType().getReturnedClass()) == null
                        && p.getType().getReturnedClass() != String.class))) {
            throw fail(who, simpleName(target) + " has a composite identifier of other parts than two Long, Integer,"
                    + " UUID or String columns; counters need a single-column Long, Integer or UUID identifier, two"
                    + " such columns or Strings (@IdClass or @EmbeddedId), or a bucket (bucket = \"createdAt\","
                    + " period = \"1 day\") for an identifier of a parent and a period's start");
        }
        if (extreme != null || !cc.distinct().isBlank() || !cc.collection().isBlank() || cc.via().length > 1
                || via(cc).contains(".")) {
            throw fail(who, simpleName(target) + " has an identifier of two columns; a counter of it counts or sums the"
                    + " rows of a source through one many-to-one that joins on both (source = Comment.class, via ="
                    + " \"article\"): leave out min, max, distinct and collection, and count along a path or through"
                    + " several associations into an entity with a single-column identifier");
        }
        if (cc.source() == void.class || via(cc).isBlank()) {
            throw fail(who, "name what is counted: source and via (source = Comment.class, via = \"article\")");
        }
        PersistentClass source = metadata.getEntityBinding(cc.source().getName());
        if (source == null) {
            throw fail(who, "source = " + cc.source().getSimpleName() + ".class is not an entity of this persistence"
                    + " unit; annotate it with @Entity and list it with the others");
        }
        ManyToOne m = manyToOne(who, via(cc), source, via(cc), target);
        if (m.getReferencedPropertyName() != null || m.getColumnSpan() != 2) {
            throw fail(who, "via = \"" + via(cc) + "\" must join on both columns of " + simpleName(target)
                    + "'s identifier");
        }
        ownTable(who, source, "via = \"" + via(cc) + "\"", via(cc), m);
        // a many-to-one's columns follow the columns of the key it references, in order
        List<String> keyColumns = target.getKey().getColumns().stream().map(CounterModel::columnName).toList();
        List<String> fkColumns = m.getColumns().stream().map(CounterModel::columnName).toList();
        String sum = cc.sum().isBlank() ? null : sumColumn(who, source, cc.sum().trim(), counter);
        return new CounterDefinition(who, tableName(metadata, target.getTable()), keyColumns.get(0), KeyType.UUID,
                columnName(singleColumn(who, counter)), columnType, tableName(metadata, source.getTable()),
                fkColumns.get(0), and(rowsOf(who, source), condition(cc.where())), sum,
                strategy, cc.slots())
                .withPair(new CounterDefinition.Pair(keyColumns, fkColumns));
    }

    /**
     * Which rows of source's table are instances of source, as a condition on them; null when every row is. Every row
     * is for an entity outside a hierarchy, the root of a SINGLE_TABLE or JOINED hierarchy (its table holds every
     * instance), a JOINED subclass (its own table holds its instances and its subclasses') and a TABLE_PER_CLASS class
     * without subclasses (its own table). A SINGLE_TABLE subclass's rows are those of its discriminator values, its
     * own and its subclasses'. A TABLE_PER_CLASS class with subclasses is refused here: its instances live in several
     * tables, which only a count or sum straight through a many-to-one reads ({@link #concreteTables}).
     */
    private static String instancesOf(String who, PersistentClass source) {
        if (perClassTables(source)) {
            throw fail(who, "source = " + simpleName(source) + " is a TABLE_PER_CLASS class with subclasses, whose"
                    + " instances live in one table per concrete class; such a source is counted straight through one"
                    + " many-to-one (source = " + simpleName(source) + ".class, via = \"...\"): count this one from"
                    + " each concrete class into a counter of its own, or map the hierarchy SINGLE_TABLE or JOINED");
        }
        if (!(source instanceof SingleTableSubclass)) {
            return null;
        }
        Value discriminator = source.getRootClass().getDiscriminator();
        if (discriminator == null || discriminator.hasFormula() || discriminator.getColumnSpan() != 1) {
            throw fail(who, "source = " + simpleName(source) + " is told apart by a discriminator formula; give "
                    + simpleName(source.getRootClass()) + " a discriminator column (@DiscriminatorColumn)");
        }
        Class<?> type = discriminator.getType().getReturnedClass();
        boolean text = type == String.class || type == Character.class || type == char.class;
        List<PersistentClass> classes = new ArrayList<>(List.of(source));
        classes.addAll(source.getSubclasses());
        List<String> values = new ArrayList<>();
        for (PersistentClass k : classes) {
            String value = k.getDiscriminatorValue();
            if (k.isDiscriminatorValueNull() || k.isDiscriminatorValueNotNull() || (!text && !value.matches("-?[0-9]+"))) {
                throw fail(who, simpleName(k) + " has @DiscriminatorValue(\"" + value + "\"); counting a subclass"
                        + " needs a value of its own for it and each of its subclasses");
            }
            values.add(text ? "'" + value.replace("'", "''") + "'" : value);
        }
        return quoted(columnName((Column) discriminator.getSelectables().get(0))) + " IN (" + String.join(", ", values)
                + ")";
    }

    /** The rows of source's table that count as its entities: its instances ({@link #instancesOf}) Hibernate loads. */
    private static String rowsOf(String who, PersistentClass source) {
        return and(instancesOf(who, source), liveRows(who, source));
    }

    /**
     * The rows of source's table that Hibernate loads, as a condition: those it has not soft-deleted ({@code
     * @SoftDelete}) and that the class's {@code @SQLRestriction} admits; null when it loads every row. A counter counts
     * what the application sees, so removing an entity that Hibernate soft-deletes takes it out of the count. A JOINED
     * subclass's own table holds neither the root's indicator column nor, as a rule, the columns of its restriction.
     */
    private static String liveRows(String who, PersistentClass source) {
        RootClass root = source.getRootClass();
        Column flag = root.getSoftDeleteColumn();
        String restriction = condition(source.getWhere());
        if (flag == null && restriction == null) {
            return null;
        }
        if (source.getTable() != root.getTable() && !(source instanceof UnionSubclass)) {
            throw fail(who, "source = " + simpleName(source) + " is a JOINED subclass of " + simpleName(root)
                    + ", whose " + (flag != null ? "@SoftDelete indicator" : "@SQLRestriction") + " reads "
                    + simpleName(root) + "'s table, which the rows of " + simpleName(source) + "'s table do not hold;"
                    + " count from " + simpleName(root) + " with a where on its type, or map the hierarchy"
                    + " SINGLE_TABLE");
        }
        String live = flag == null ? null : quoted(columnName(flag)) + (root.getSoftDeleteStrategy()
                == SoftDeleteType.TIMESTAMP ? " IS NULL" : " = " + notDeleted(who, root, flag));
        return and(live, restriction);
    }

    /**
     * Refuses a count of the links of a join table to element when Hibernate hides some of element's rows: the links
     * of an entity it soft-deletes, or that its @SQLRestriction hides, stay, and would still count.
     */
    private static void hidesNoRows(String who, PersistentClass element, String through) {
        if (liveRows(who, element) != null) {
            throw fail(who, "\"" + through + "\" counts the links of a join table to " + simpleName(element) + ", whose"
                    + " rows Hibernate hides (@SoftDelete or @SQLRestriction) while their links stay; map the join"
                    + " table as an entity with two many-to-ones and count from it, with a where on what it hides");
        }
    }

    /**
     * What a soft-delete indicator column holds for a row not deleted, as SQL. Its converter's domain value is whether
     * the row is deleted, whichever way the column reads (Hibernate reverses it for ACTIVE); without one, the column
     * holds that boolean, or its opposite for ACTIVE.
     */
    @SuppressWarnings("unchecked")
    private static String notDeleted(String who, RootClass root, Column flag) {
        Object stored = root.getSoftDeleteStrategy() == SoftDeleteType.ACTIVE;
        if (flag.getValue() instanceof BasicValue v && v.resolve().getValueConverter() != null) {
            stored = ((BasicValueConverter<Boolean, ?>)
                    v.resolve().getValueConverter()).toRelationalValue(false);
        }
        if (stored instanceof Boolean || stored instanceof Number) {
            return stored.toString();
        }
        if (stored instanceof Character || stored instanceof String) {
            return "'" + stored.toString().replace("'", "''") + "'";
        }
        throw fail(who, simpleName(root) + "'s @SoftDelete converter stores a live row's indicator as " + stored
                + ", which countercache cannot write as SQL; use a converter to a boolean, a number or a character");
    }

    /** A condition as written (a where, an @SQLRestriction), trimmed; null when there is none. */
    private static String condition(String sql) {
        return sql == null || sql.isBlank() ? null : sql.trim();
    }

    /**
     * Both conditions (either may be null). The developer's stands between THEN and END, where a text that closes its
     * parenthesis ({@code a) OR (b}), which PostgreSQL's checks take as the one expression {@code (a) OR (b)}, stays
     * one: after AND it would be {@code rows AND (a) OR (b)}, and count rows of other classes.
     */
    private static String and(String rows, String where) {
        return rows == null ? where : where == null ? rows : rows + " AND CASE WHEN true THEN (" + where + ") END";
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * A counter of a collection the target maps: the element rows through the collection's join column, or the
     * join table's rows (links) for a collection through one. Either way the counted table's column that points at
     * the target is the collection's key, so the counter is an ordinary one of that table.
     */
    private static List<Declared> collectionCounter(Metadata metadata, PersistentClass target, String who,
                                                    CounterCache cc, Property counter, String columnType,
                                                    KeyType keyType, Strategy strategy) {
        String name = cc.collection().trim();
        if (cc.source() != void.class || !via(cc).isBlank()) {
            throw fail(who, "collection = \"" + name + "\" names what is counted; leave out source and via");
        }
        List<String> candidates = target.getPropertyClosure().stream()
                .filter(p -> p.getValue() instanceof org.hibernate.mapping.Collection).map(Property::getName).sorted().toList();
        Property p = null;
        try {
            p = target.getProperty(name);
        } catch (MappingException e) {
            // reported below with the candidates
        }
        if (p == null || !(p.getValue() instanceof org.hibernate.mapping.Collection c)) {
            throw fail(who, "collection = \"" + name + "\" is not a collection of " + simpleName(target) + "; "
                    + simpleName(target) + " has " + (candidates.isEmpty() ? "none" : candidates.toString()));
        }
        if (c.getReferencedPropertyName() != null || c.getKey().getColumnSpan() != 1) {
            throw fail(who, "collection = \"" + name + "\" must join on " + simpleName(target)
                    + "'s identifier with a single column");
        }
        if (!(c.getElement() instanceof org.hibernate.mapping.OneToMany) && !(c.getElement() instanceof ManyToOne)) {
            throw fail(who, "collection = \"" + name + "\" holds values, not entities; count a collection of entities"
                    + " (@OneToMany or @ManyToMany)");
        }
        String fk = columnName((Column) c.getKey().getSelectables().get(0));
        String where = condition(cc.where());
        if (c.isOneToMany()) {   // a join column in the element's table
            PersistentClass element = metadata.getEntityBinding(((org.hibernate.mapping.OneToMany) c.getElement())
                    .getReferencedEntityName());
            // the join column must be in the element's own table (not a JOINED superclass's, mapped by its attribute)
            ownTable(who, element, "collection = \"" + name + "\"",
                    c.getMappedByProperty() != null ? c.getMappedByProperty() : name, c.getKey());
            // and the collection's own @SQLRestriction, on the element's columns
            String rows = and(rowsOf(who, element), condition(c.getWhere()));
            String sum = cc.sum().isBlank() ? null : sumColumn(who, element, cc.sum().trim(), counter);
            return List.of(new Declared(new CounterDefinition(who, tableName(metadata, target.getTable()),
                    columnName(target.getKey().getColumns().get(0)), keyType,
                    columnName(singleColumn(who, counter)), columnType, tableName(metadata, element.getTable()), fk,
                    and(rows, where), sum, strategy, cc.slots(), null), target, counter));
        }
        if (condition(c.getWhere()) != null || condition(c.getManyToManyWhere()) != null) {
            throw fail(who, "collection = \"" + name + "\" has an @SQLRestriction, which its join table's links do not"
                    + " know of; give its condition as where = \"...\" on the element's columns instead");
        }
        hidesNoRows(who, metadata.getEntityBinding(((ManyToOne) c.getElement()).getReferencedEntityName()), name);
        if (!cc.sum().isBlank()) {
            throw fail(who, "collection = \"" + name + "\" goes through the join table "
                    + tableName(metadata, c.getCollectionTable()) + ", which holds links, not the elements' columns;"
                    + " count it without sum, or map the collection with a join column (@JoinColumn) or count from"
                    + " the element entity with source and via");
        }
        if (where != null) {   // the element's columns, read per link by the rollup
            PersistentClass element = metadata.getEntityBinding(((ManyToOne) c.getElement()).getReferencedEntityName());
            if (instancesOf(who, element) != null || c.getElement().getColumnSpan() != 1
                    || element.getKey().getColumnSpan() != 1
                    || ((ManyToOne) c.getElement()).getReferencedPropertyName() != null) {
                throw fail(who, "collection = \"" + name + "\" with a where must hold entities of their own table,"
                        + " joined on their identifier with a single column");
            }
            return farWhere(metadata, target, who, cc, counter, columnType, keyType, strategy,
                    tableName(metadata, c.getCollectionTable()), fk, element,
                    columnName((Column) c.getElement().getSelectables().get(0)));
        }
        return List.of(new Declared(new CounterDefinition(who, tableName(metadata, target.getTable()),
                columnName(target.getKey().getColumns().get(0)), keyType,
                columnName(singleColumn(who, counter)), columnType, tableName(metadata, c.getCollectionTable()), fk,
                null, null, strategy, cc.slots(), null), target, counter));
    }

    /** The collection {@code via} of {@code source} when it is a many-to-many of {@code target}s; null otherwise. */
    private static org.hibernate.mapping.Collection manyToMany(PersistentClass source, String via,
                                                               PersistentClass target) {
        for (Property p : source.getPropertyClosure()) {
            if (p.getName().equals(via) && p.getValue() instanceof org.hibernate.mapping.Collection c
                    && !c.isOneToMany() && c.getElement() instanceof ManyToOne m
                    && target.getEntityName().equals(m.getReferencedEntityName())) {
                return c;
            }
        }
        return null;
    }

    /**
     * A counter of the links of a many-to-many that the source maps ({@code source = Article.class, via = "tags"} on
     * Tag): the join table's rows, by its column that points at the target. The link rows hold no column of the
     * source, so a sum is refused, and so is a source whose table holds other classes' rows too. A where on the
     * source's columns ("published articles per tag") is kept in two levels: per link, a recomputed count of its
     * source row that meets the where (a column of the library's in the join table, which the rollup keeps, so that
     * no writer reads a row another transaction writes), and the field, a sum of that column by the target.
     */
    private static List<Declared> linkCounter(Metadata metadata, PersistentClass target, String who, CounterCache cc,
                                              PersistentClass source, org.hibernate.mapping.Collection links,
                                              Property counter, String columnType, KeyType keyType,
                                              Strategy strategy) {
        TableName table = tableName(metadata, links.getCollectionTable());
        ManyToOne element = (ManyToOne) links.getElement();
        if (!cc.sum().isBlank() || !cc.min().isBlank() || !cc.max().isBlank() || !cc.distinct().isBlank()) {
            throw fail(who, "via = \"" + via(cc) + "\" is a many-to-many, counted by the links in its join table "
                    + table + ", which hold no column of " + simpleName(source) + "; count the links (with a where on "
                    + simpleName(source) + "'s columns, or without) but without sum, min, max and distinct, or map the"
                    + " join table as an entity with two many-to-ones and count from it");
        }
        hidesNoRows(who, source, via(cc));
        if (instancesOf(who, source) != null || element.getReferencedPropertyName() != null
                || element.getColumnSpan() != 1
                || links.getKey().getColumnSpan() != 1 || source.getKey().getColumnSpan() != 1
                || links.getReferencedPropertyName() != null) {
            throw fail(who, "via = \"" + via(cc) + "\" must be a many-to-many of an entity's own table, joined on "
                    + simpleName(source) + "'s and " + simpleName(target) + "'s identifiers with a single column each");
        }
        String linkColumn = columnName(element.getColumns().get(0));
        if (cc.where().isBlank()) {
            return List.of(new Declared(new CounterDefinition(who, tableName(metadata, target.getTable()),
                    columnName(target.getKey().getColumns().get(0)), keyType, columnName(singleColumn(who, counter)),
                    columnType, table, linkColumn, null, null, strategy, cc.slots(), null), target, counter));
        }
        return farWhere(metadata, target, who, cc, counter, columnType, keyType, strategy, table, linkColumn, source,
                columnName((Column) links.getKey().getSelectables().get(0)));
    }

    /**
     * A count of the links of a join table whose far row meets the where, in two levels: per link, a recomputed count
     * of its far row ({@code far}, by its key, in the link's column {@code farColumn}) if that row meets the where,
     * kept in a column of the library's in the join table by the queue; and the field, a sum of that column by the
     * join table's column that points at the target ({@code targetColumn}). The rollup does the join, so that no
     * writer reads a row another transaction writes ("A where on the far entity" in docs/architecture.md).
     */
    private static List<Declared> farWhere(Metadata metadata, PersistentClass target, String who, CounterCache cc,
                                           Property counter, String columnType, KeyType keyType, Strategy strategy,
                                           TableName joinTable, String targetColumn, PersistentClass far,
                                           String farColumn) {
        KeyType farKeyType = keyType(far.getIdentifierProperty().getType().getReturnedClass());
        if (farKeyType == null) {
            throw fail(who, "a where on " + simpleName(far) + "'s columns is kept per link by " + simpleName(far)
                    + "'s identifier, which is " + far.getIdentifierProperty().getType().getReturnedClass().getSimpleName()
                    + "; it needs a Long, Integer or UUID identifier, or count the links without where");
        }
        TableName top = tableName(metadata, target.getTable());
        String column = columnName(singleColumn(who, counter));
        String farKey = columnName(far.getKey().getColumns().get(0));
        String perLink = levelColumn(top, column, 1);
        CounterDefinition links = new CounterDefinition(who + " (per link)", joinTable, farColumn, farKeyType, perLink,
                "bigint",
                tableName(metadata, far.getTable()), farKey, cc.where().trim(), null, Strategy.QUEUE, 0, null,
                new CounterDefinition.Extreme(CounterDefinition.Extreme.COUNT, farKey));
        return List.of(new Declared(links, far, null),
                new Declared(new CounterDefinition(who, top, columnName(target.getKey().getColumns().get(0)), keyType,
                        column, columnType, joinTable, targetColumn, null, perLink, strategy, cc.slots(), null), target,
                        counter));
    }

    /** The column of the many-to-one {@code step} of {@code from} that points at {@code to}'s identifier. */
    private static Column viaColumn(String who, String via, PersistentClass from, String step, PersistentClass to) {
        ManyToOne m = manyToOne(who, via, from, step, to);
        if (m.getReferencedPropertyName() != null || m.getColumnSpan() != 1) {
            throw fail(who, "via = \"" + via + "\" must join on " + simpleName(to)
                    + "'s identifier with a single column");
        }
        ownTable(who, from, "via = \"" + via + "\"", step, m);
        return m.getColumns().get(0);
    }

    /**
     * Refuses an attribute whose column is not in the counted table: one that a JOINED subclass inherits (its column
     * is in the superclass's table) or one mapped to another table (@JoinTable, @SecondaryTable). A TABLE_PER_CLASS
     * class's table has a copy of each inherited column.
     */
    private static void ownTable(String who, PersistentClass from, String what, String attribute, Value value) {
        if (value.getTable() == from.getTable() || from instanceof UnionSubclass) {
            return;
        }
        PersistentClass declarer = from;
        while (declarer.getSuperclass() != null && declarer.getTable() != value.getTable()) {
            declarer = declarer.getSuperclass();
        }
        throw fail(who, what + ": the column of " + attribute + " is in table " + name(value.getTable())
                + ", and the rows of " + simpleName(from) + " are in " + name(from.getTable())
                + (declarer.getTable() == value.getTable() && declarer != from
                   ? " (JOINED); count " + simpleName(declarer) + " instead, or declare " + attribute + " on "
                     + simpleName(from)
                   : "; map " + attribute + " to a column of " + name(from.getTable())));
    }

    private static String name(Table table) {
        return physical(table.getName(), table.isQuoted());
    }

    /** The many-to-one {@code step} of {@code from}, pointing at {@code to} (at any entity when {@code to} is null). */
    private static ManyToOne manyToOne(String who, String via, PersistentClass from, String step, PersistentClass to) {
        List<String> candidates = from.getPropertyClosure().stream()
                .filter(p -> p.getValue() instanceof ManyToOne m && (to == null || to.getEntityName().equals(m.getReferencedEntityName())))
                .map(Property::getName).sorted().toList();
        Property p = null;
        try {
            p = from.getProperty(step);
        } catch (MappingException e) {
            // reported below with the candidates
        }
        if (p == null || !(p.getValue() instanceof ManyToOne m) || (to != null && !to.getEntityName().equals(m.getReferencedEntityName()))) {
            String where = via.equals(step) ? "" : " (in via = \"" + via + "\")";
            throw fail(who, (where.isEmpty() ? "via = \"" + via + "\"" : "\"" + step + "\"" + where)
                    + " is not a many-to-one of " + simpleName(from)
                    + (to == null ? "" : " pointing to " + simpleName(to)) + "; " + simpleName(from) + " has "
                    + (candidates.isEmpty() ? "none" : candidates.toString()) + collectionHint(from, to));
        }
        return m;
    }

    /**
     * Where the relation is mapped the other way, how to count it: from {@code to}'s own collection of {@code from}s
     * (a one-way {@code @OneToMany} or {@code @ManyToMany}, as Spring PetClinic maps Owner.pets).
     */
    private static String collectionHint(PersistentClass from, PersistentClass to) {
        if (to == null) {
            return "";
        }
        List<String> collections = to.getPropertyClosure().stream()
                .filter(p -> p.getValue() instanceof org.hibernate.mapping.Collection c
                        && (c.getElement() instanceof org.hibernate.mapping.OneToMany o
                            ? from.getEntityName().equals(o.getReferencedEntityName())
                            : c.getElement() instanceof ManyToOne m && from.getEntityName().equals(m.getReferencedEntityName())))
                .map(Property::getName).sorted().toList();
        return collections.isEmpty() ? "" : "; " + simpleName(to) + " maps the relation itself: count its collection"
                + " with collection = \"" + collections.get(0) + "\" instead of source and via";
    }

    /** The decimal places of a BigDecimal column: its scale, or Hibernate's default of 2 where it names none. */
    private static int scale(Column column) {
        return column.getScale() == null ? 2 : column.getScale();
    }

    /** {@code numeric(p,s)} of a BigDecimal counter column, Hibernate's defaults (38, 2) where it names none. */
    private static String decimalType(String who, Column column) {
        int precision = column.getPrecision() == null ? 38 : column.getPrecision();
        int scale = scale(column);
        if (scale > 18 || scale > precision) {
            throw fail(who, "the column has scale " + scale + "; a BigDecimal counter keeps at most 18 decimal places"
                    + " (set @Column(precision = ..., scale = ...))");
        }
        return "numeric(" + precision + "," + scale + ")";
    }

    /**
     * The column that {@code sum} names, checked against the counter's column type: an integral or BigDecimal
     * attribute, with no more decimal places than the counter keeps.
     */
    private static String sumColumn(String who, PersistentClass source, String sum, Property counter) {
        return sourceColumn(who, source, "sum", sum, p -> {
            Class<?> type = p.getType().getReturnedClass();
            if (columnType(type) == null && type != Short.class && type != short.class && type != BigDecimal.class) {
                boolean floating = type == Double.class || type == double.class || type == Float.class
                        || type == float.class;
                throw fail(who, "sum = \"" + sum + "\" is " + type.getSimpleName() + "; sum an integral or"
                        + " BigDecimal attribute" + (floating ? " (floating point sums cannot be exact)" : ""));
            }
            int scale = type == BigDecimal.class ? scale(singleColumn(who, p)) : 0;
            int kept = counter.getType().getReturnedClass() == BigDecimal.class ? scale(singleColumn(who, counter)) : 0;
            if (scale > kept) {
                throw fail(who, "sum = \"" + sum + "\" has " + scale + " decimal places and the counter keeps "
                        + kept + (kept == 0 ? "; declare the counter BigDecimal with @Column(scale = " + scale + ")"
                                  : "; give the counter @Column(scale = " + scale + ")")
                        + " or more, so that no cent is dropped");
            }
        });
    }

    /**
     * The source column that {@code attribute = "name"} names: an attribute of the source, which {@code check} judges
     * first, or else a column by its database name.
     */
    private static String sourceColumn(String who, PersistentClass source, String attribute, String name,
                                       java.util.function.Consumer<Property> check) {
        for (Property p : source.getPropertyClosure()) {
            if (p.getName().equals(name)) {
                check.accept(p);
                ownTable(who, source, attribute + " = \"" + name + "\"", name, p.getValue());
                return columnName(singleColumn(who, p));
            }
        }
        for (Column c : source.getTable().getColumns()) {
            if (columnName(c).equals(name)) {
                return columnName(c);
            }
        }
        throw fail(who, attribute + " = \"" + name + "\" is neither an attribute nor a column of " + simpleName(source)
                + "; its attributes are " + source.getPropertyClosure().stream().map(Property::getName).sorted()
                .collect(Collectors.joining(", ", "[", "]")));
    }

    /** The Java types a min or max field may have: each maps to a column type the database compares and reports. */
    private static final Set<Class<?>> EXTREME_TYPES = Set.of(Long.class, Integer.class, Short.class, BigDecimal.class,
            java.time.Instant.class, java.time.OffsetDateTime.class, java.time.LocalDateTime.class,
            java.time.LocalDate.class);

    /**
     * "min" or "max" when the counter keeps an extreme, null for a count, a sum or a count of distinct values; one of
     * sum, min, max and distinct at most.
     */
    private static String extremeFunction(String who, CounterCache cc) {
        long declared = java.util.stream.Stream.of(cc.sum(), cc.min(), cc.max(), cc.distinct())
                .filter(a -> !a.isBlank()).count();
        if (declared > 1) {
            throw fail(who, "declare one of sum, min, max and distinct");
        }
        return !cc.min().isBlank() ? "min" : !cc.max().isBlank() ? "max" : null;
    }

    /**
     * The SQL type of a min or max column as Hibernate maps it (the database checks that it is the type of the column
     * it keeps the extreme of), after checking the field's type and the strategy.
     */
    private static String extremeType(String who, Metadata metadata, Field field, Property counter, Strategy strategy) {
        if (field.getType().isPrimitive()) {
            throw fail(who, "the field is " + field.getType().getSimpleName() + ", which cannot be null when no row"
                    + " counts; declare it as " + (field.getType() == int.class ? "Integer" : "Long") + " (boxed)");
        }
        if (!EXTREME_TYPES.contains(field.getType())) {
            throw fail(who, "the field is " + field.getType().getSimpleName() + "; a min or max keeps a Long, Integer,"
                    + " Short, BigDecimal, Instant, OffsetDateTime, LocalDateTime or LocalDate");
        }
        if (strategy == Strategy.DIRECT || strategy == Strategy.SLOTTED) {
            throw fail(who, "strategy " + strategy + " cannot keep a min or max: it is recomputed by the rollup, so"
                    + " that no writer waits for it; use strategy QUEUE or UNLOGGED");
        }
        return singleColumn(who, counter).getSqlType(metadata);
    }

    /** The Java types whose distinct values a counter counts: each has one text per value in the database. */
    private static final Set<Class<?>> DISTINCT_TYPES = Set.of(Long.class, long.class, Integer.class, int.class,
            Short.class, short.class, String.class, java.util.UUID.class, Boolean.class, boolean.class);

    /** The column whose distinct values are counted: a many-to-one's foreign key, or an attribute, or a column. */
    private static String distinctColumn(String who, PersistentClass source, String name) {
        return sourceColumn(who, source, "distinct", name, p -> {
            Class<?> type = p.getType().getReturnedClass();
            if (!(p.getValue() instanceof ManyToOne) && !DISTINCT_TYPES.contains(type)) {
                throw fail(who, "distinct = \"" + name + "\" is " + type.getSimpleName() + "; count the distinct values"
                        + " of a many-to-one, or of an integer, UUID, String or Boolean attribute");
            }
        });
    }

    /** The column a min or max reads: an attribute of the field's own type, or a column, of the source. */
    private static String extremeColumn(String who, PersistentClass source, String extreme, String name, Field field) {
        return sourceColumn(who, source, extreme, name, p -> {
            Class<?> type = p.getType().getReturnedClass();
            Class<?> boxed = type.isPrimitive() ? java.lang.invoke.MethodType.methodType(type).wrap().returnType() : type;
            if (boxed != field.getType()) {
                throw fail(who, extreme + " = \"" + name + "\" is " + type.getSimpleName() + " and the field is "
                        + field.getType().getSimpleName() + "; give the field the attribute's type");
            }
        });
    }

    /** The Java types of a timestamp a counter may touch. */
    private static final Set<Class<?>> TOUCH_TYPES = Set.of(java.time.Instant.class, java.time.OffsetDateTime.class,
            java.time.ZonedDateTime.class, java.time.LocalDateTime.class, java.util.Date.class, java.sql.Timestamp.class,
            java.util.Calendar.class);

    /** The column of the timestamp attribute a counter touches: an attribute of the target other than the counter. */
    private static String touchColumn(String who, PersistentClass target, String name, Field counter) {
        Property p;
        try {
            p = target.getProperty(name);
        } catch (MappingException e) {
            throw fail(who, "touch = \"" + name + "\" is not an attribute of " + simpleName(target)
                    + "; name its timestamp attribute (touch = \"updatedAt\")");
        }
        Class<?> type = p.getType().getReturnedClass();
        if (name.equals(counter.getName()) || !TOUCH_TYPES.contains(type)) {
            throw fail(who, "touch = \"" + name + "\" is " + type.getSimpleName() + "; touch a timestamp attribute"
                    + " (Instant, OffsetDateTime, LocalDateTime) that no counter keeps");
        }
        return columnName(singleColumn(who, p));
    }

    private static Column singleColumn(String who, Property p) {
        List<Selectable> selectables = p.getValue().getSelectables();
        if (selectables.size() != 1 || !(selectables.get(0) instanceof Column c)) {
            throw fail(who, "attribute " + p.getName() + " must map to exactly one column");
        }
        return c;
    }

    static TableName tableName(Metadata metadata, Table table) {
        Identifier schema = table.getQualifiedTableName().getSchemaName();
        if (schema == null) {
            Object configured = metadata.getDatabase().getServiceRegistry().requireService(ConfigurationService.class)
                    .getSettings().get(AvailableSettings.DEFAULT_SCHEMA);
            schema = configured == null || configured.toString().isBlank() ? null
                    : Identifier.toIdentifier(configured.toString().trim());
        }
        return new TableName(schema == null ? "public" : physical(schema.getText(), schema.isQuoted()),
                physical(table.getQualifiedTableName().getTableName().getText(), table.isQuoted()));
    }

    static String columnName(Column column) {
        return physical(column.getName(), column.isQuoted());
    }

    /** PostgreSQL folds unquoted identifiers to lower case; Hibernate emits unquoted names unless told to quote. */
    private static String physical(String name, boolean quoted) {
        return quoted ? name : name.toLowerCase(Locale.ROOT);
    }

    private static String columnType(Class<?> type) {
        if (type == long.class || type == Long.class) {
            return "bigint";
        }
        if (type == int.class || type == Integer.class) {
            return "integer";
        }
        return null;
    }

    private static KeyType keyType(Class<?> type) {
        if (type == Long.class || type == long.class) {
            return KeyType.BIGINT;
        }
        if (type == Integer.class || type == int.class) {
            return KeyType.INTEGER;
        }
        return type == UUID.class ? KeyType.UUID : null;
    }

    private static String simpleName(PersistentClass pc) {
        return pc.getMappedClass() == null ? pc.getEntityName() : pc.getMappedClass().getSimpleName();
    }

    private static CounterCacheException fail(String who, String problem) {
        return new CounterCacheException("@CounterCache on " + who + ": " + problem);
    }
}
