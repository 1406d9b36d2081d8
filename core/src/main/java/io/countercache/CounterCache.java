package io.countercache;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a counter cache: a numeric field of the annotated (target) entity that holds the number of rows of
 * {@link #source()} pointing at it through {@link #via()}, optionally filtered by {@link #where()}, or the sum of
 * one of their columns ({@link #sum()}), its least or greatest value ({@link #min()}, {@link #max()}), or the number
 * of its distinct values ({@link #distinct()}).
 *
 * <pre>{@code
 * @Entity class Article {
 *   @CounterCache(source = Comment.class, via = "article", where = "publish_status = 'public'")
 *   long totalPublicComments;
 * }
 * }</pre>
 *
 * <p>The value is maintained by PostgreSQL triggers on the source table and a rollup (see {@link RollupWorker});
 * Hibernate never writes it. The triggers come from the generated Liquibase changelog, so every write is counted,
 * whether it comes from Hibernate, bulk JPQL, native SQL or psql.
 *
 * <p>The field must be {@code long}, {@code int} or their boxes, or {@code BigDecimal} for the sum of a
 * {@code numeric(p,s)} column (kept exactly, to the column's scale); the target's identifier must be a single
 * {@code Long}, {@code Integer} or {@code UUID}; {@code via} must be a many-to-one of the source entity that points at
 * the target entity's identifier, a path ({@code "article.blog"}), or several many-to-ones that point at it.
 * Anything else fails when the changelog is generated or when Hibernate boots.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface CounterCache {

    /** The entity whose rows are counted, for example {@code Comment.class}; with {@link #via()}. */
    Class<?> source() default void.class;

    /**
     * The many-to-one attribute of {@link #source()} that points at this entity, for example {@code "article"}; or a
     * path of many-to-ones through middle entities, of any length, {@code "article.blog"}: a comment counts for the
     * blog of its article, and moving an article to another blog moves its comments' counts. A count or sum along a
     * path is kept level by level, in a column of the library's on each middle entity's table, and locks nothing; a
     * count of distinct values along a path has two steps at most, and its source's many-to-one to the middle entity
     * needs a foreign key constraint (Hibernate creates one unless told not to).
     *
     * <p>Several many-to-ones of the source that point at this entity feed one counter, {@code via = {"challenger",
     * "opponent"}}: a game counts for each of its players, twice for a player on both sides. Such a counter counts or
     * sums; it has no path, bucket, min, max or distinct.
     */
    String[] via() default {};

    /**
     * Instead of {@link #source()} and {@link #via()}: a collection attribute of this entity whose elements are
     * counted, for a model that maps the relation on this side only, {@code @CounterCache(collection = "pets") long
     * petCount;}. A {@code @OneToMany} with a join column (or {@code mappedBy}) counts the element rows, and
     * {@link #where()} and {@link #sum()} read the element's columns; a {@code @OneToMany} or {@code @ManyToMany}
     * through a join table counts the join table's rows, the element's links, and a {@code where} on the element's
     * columns is kept per link by the rollup (a column of the library's in the join table), as for a
     * {@code @ManyToMany} counted from the other side with {@code source} and {@code via}.
     */
    String collection() default "";

    /**
     * A SQL boolean expression over the source table's columns, by their database names; only rows for which it is
     * true are counted. Functions outside {@code pg_catalog} must be schema-qualified. Default: every row.
     */
    String where() default "";

    /**
     * A source column (attribute name or column name) to add up instead of counting rows: of an integer type into a
     * {@code long} or {@code int} field, or of type {@code numeric(p,s)} into a {@code BigDecimal} field with at least
     * s decimal places ({@code @Column(precision = 14, scale = 2)}). Floating point columns are refused: their sums
     * cannot be exact. Default: count rows.
     */
    String sum() default "";

    /**
     * A source column (attribute name or column name) whose least value the field keeps instead of a count, for
     * example the earliest comment's {@code createdAt}; NULL when no row counts. The field has the column's Java type
     * ({@code Long}, {@code Integer}, {@code Short}, {@code BigDecimal}, {@code Instant}, {@code OffsetDateTime},
     * {@code LocalDateTime} or {@code LocalDate}), boxed, and the source needs an index on (the foreign key, this
     * column), by which the rollup recomputes a target whose rows changed; the changelog's check names it. Kept by
     * the queue ({@link Strategy#QUEUE} or {@link Strategy#UNLOGGED}), from a direct many-to-one. Default: none.
     */
    String min() default "";

    /** As {@link #min()}, the greatest value: {@code @CounterCache(source = Comment.class, via = "article",
     * max = "createdAt") Instant lastCommentAt;}. */
    String max() default "";

    /**
     * A source attribute (or column) whose distinct values are counted instead of rows: {@code @CounterCache(source =
     * Comment.class, via = "article", distinct = "creator") long commenters;} counts the different users who
     * commented on an article; rows whose value is NULL are not counted, as in {@code count(DISTINCT ...)}. A
     * many-to-one counts the distinct entities it points at; otherwise the attribute is an integer, a UUID, a String
     * or a Boolean. The field is a {@code long} or an {@code int}, kept by the queue ({@link Strategy#QUEUE}). Besides
     * the column, the library keeps one row per target and value (the value's number of rows): do not count the
     * distinct values of a column that is nearly unique per row, where the column would equal the row count at the
     * price of a row per source row. Default: count rows.
     */
    String distinct() default "";

    /**
     * A timestamp attribute of this entity ({@code Instant}, {@code OffsetDateTime}, {@code LocalDateTime}, ...) that
     * is set to the time of the transaction whenever this counter changes, in the same update of the row:
     * {@code touch = "updatedAt"}, so that caches and ETags keyed on it see the change. Default: none.
     */
    String touch() default "";

    /**
     * A time attribute (or column) of the source by which its rows are counted per period, each period in a row of
     * its own: the field belongs to a bucket entity whose composite identifier ({@code @IdClass} or
     * {@code @EmbeddedId}) holds the parent that {@link #via()} points at and the period's start (a
     * {@code LocalDate}, {@code LocalDateTime}, {@code Instant} or {@code OffsetDateTime}):
     * {@code @CounterCache(source = Comment.class, via = "article", bucket = "createdAt", period = "1 day") long
     * comments;} on {@code ArticleDay}. The rollup creates a bucket's row when its first row is counted, so writers
     * never wait for it; the library adds a generated key column to the table ({@code countercache_key}, as it does to
     * an entity keyed by two {@code Long} or {@code Integer} columns that a counter counts into). Kept by the
     * queue ({@link Strategy#QUEUE} or {@link Strategy#UNLOGGED}), a count or a sum. Default: none.
     */
    String bucket() default "";

    /**
     * With {@link #bucket()}: how long a bucket is, a whole number of one unit: {@code "1 hour"}, {@code "15
     * minutes"}, {@code "1 day"}, {@code "1 week"}, {@code "1 month"}. Periods start at 2000-01-01, midnight in
     * {@link #zone()}, and follow each other from there.
     */
    String period() default "";

    /**
     * With {@link #bucket()}: the time zone in which periods are aligned (a day starts at its midnight). Another zone
     * on a counter without a bucket is refused at boot.
     */
    String zone() default "UTC";

    /**
     * With {@link #bucket()}: how many periods before the current one to keep; the workers delete older buckets
     * (their rows, and what is queued for them) about once a minute, and a late row for one is not counted.
     * Default 0: keep every bucket. Refused at boot on a counter without a bucket.
     */
    int retention() default 0;

    /**
     * How writes reach the column: {@link Strategy#QUEUE} (the default), {@link Strategy#UNLOGGED},
     * {@link Strategy#DIRECT} or {@link Strategy#SLOTTED}. {@link Strategy#DEFAULT} takes the persistence unit's
     * setting {@code countercache.strategy}, else {@code QUEUE}.
     */
    Strategy strategy() default Strategy.DEFAULT;

    /**
     * For {@link Strategy#SLOTTED}: how many slot rows a target's writes spread over (2 to 1024). Another number on a
     * counter of another strategy is refused at boot.
     */
    int slots() default 16;
}
