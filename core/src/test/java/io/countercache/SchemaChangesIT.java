package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

import java.sql.SQLException;
import java.util.List;

import static io.countercache.BlogSchema.ARTICLE;
import static io.countercache.BlogSchema.ARTICLE_COMMENTERS;
import static io.countercache.BlogSchema.ARTICLE_COMMENTS;
import static io.countercache.BlogSchema.ARTICLE_LIKES;
import static io.countercache.BlogSchema.ARTICLE_MOST_LIKES;
import static io.countercache.BlogSchema.ARTICLE_PUBLIC;
import static io.countercache.BlogSchema.COMMENT;
import static io.countercache.BlogSchema.ORDER_CHEAPEST;
import static io.countercache.BlogSchema.USER_PUBLIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A schema that does not fit the counters: every problem of a changelog is reported in one error before anything is
 * installed, and a later migration that would break an installed counter (a counted column renamed, retyped or
 * dropped, a table dropped) is refused by the DDL guard with the counters it breaks, unless it says it means it.
 */
class SchemaChangesIT {

    private static final List<CounterDefinition> BLOG = List.of(ARTICLE_COMMENTS, ARTICLE_PUBLIC, USER_PUBLIC, ARTICLE_LIKES);

    private TestDatabase db;

    @BeforeEach
    void blog() throws Exception {
        db = TestPostgres.newDatabase(SchemaChangesIT.class);
        db.execute(BlogSchema.TABLES);
    }

    @Test
    void everyProblemOfAChangelogIsReportedTogetherBeforeAnyCounterIsInstalled() {
        db.execute("ALTER TABLE blog_comment ALTER COLUMN creator_id TYPE integer; ALTER TABLE blog_comment DROP COLUMN likes");
        CounterDefinition missingTable = new CounterDefinition("Tag.uses", new TableName("public", "tag"), "id",
                KeyType.INTEGER, "uses", "integer", new TableName("public", "taging"), "tag_id", null, null);
        CounterDefinition badWhere = new CounterDefinition("Article.drafts", ARTICLE, "id", KeyType.BIGINT, "drafts",
                "bigint", COMMENT, "article_id", "status = 'draft'", null);

        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_COMMENTS, USER_PUBLIC, ARTICLE_LIKES, missingTable, badWhere)))
                .isInstanceOf(PSQLException.class)
                .hasMessageContaining("countercache: 4 problems with the @CounterCache declarations:")
                .hasMessageContaining("@CounterCache on User.totalPublicComments: foreign key column public.blog_comment.creator_id"
                        + " is integer, the key it points at is bigint")
                .hasMessageContaining("@CounterCache on Article.totalLikes: sum column public.blog_comment.likes is missing")
                .hasMessageContaining("@CounterCache on Tag.uses: source table public.taging does not exist")
                .hasMessageContaining("fix: apply the changelog that creates it before the countercache changelog")
                .hasMessageContaining("@CounterCache on Article.drafts: where = \"status = 'draft'\" is not one boolean"
                        + " expression over public.blog_comment: column \"status\" does not exist");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.counter")).as("counters installed").isZero();
        assertThat(db.queryLong("SELECT count(*) FROM information_schema.columns WHERE column_name = 'total_comments'"))
                .as("counter columns added").isZero();
    }

    /** Citus is not installable here: its catalog table is planted, as Citus creates it, to stand in for it. */
    @Test
    void aTableDistributedByCitusIsRefused() {
        db.execute("SET allow_system_table_mods = on;"
                + " CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass NOT NULL, partmethod \"char\" NOT NULL);"
                + " INSERT INTO pg_catalog.pg_dist_partition VALUES ('blog_comment', 'h'), ('blog_user', 'n')");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_COMMENTS, USER_PUBLIC)))
                .hasMessageContaining("countercache: 3 problems with the @CounterCache declarations:")
                .hasMessageContaining("@CounterCache on Article.totalComments: source table public.blog_comment is"
                        + " distributed by Citus")
                .hasMessageContaining("@CounterCache on User.totalPublicComments: target table public.blog_user is"
                        + " distributed by Citus")
                .hasMessageContaining("fix: keep the tables a counter reads and writes local to the coordinator");
    }

    /**
     * Statement triggers fire only for the table a statement names, so rows written into a partition directly (or
     * through the parent of a counted partition) would never be counted: partitioned and inherited sources are
     * refused, and so are attaching a counted source as a partition and a child table of a counted one. A
     * partitioned target is not: the rollup writes it by key.
     */
    @Test
    void aPartitionedOrInheritedSourceIsRefused() throws Exception {
        db.execute("CREATE TABLE event (id bigint NOT NULL, article_id bigint, kind text NOT NULL) PARTITION BY LIST (kind);"
                + " CREATE TABLE event_a PARTITION OF event FOR VALUES IN ('a');"
                + " CREATE TABLE rack (id bigint NOT NULL, events bigint NOT NULL DEFAULT 0) PARTITION BY HASH (id);"
                + " CREATE TABLE rack_0 PARTITION OF rack FOR VALUES WITH (MODULUS 1, REMAINDER 0);"
                + " ALTER TABLE rack ADD PRIMARY KEY (id)");
        CounterDefinition events = new CounterDefinition("Article.events", ARTICLE, "id", KeyType.BIGINT, "events",
                "bigint", new TableName("public", "event"), "article_id", null, null);
        CounterDefinition aEvents = new CounterDefinition("Article.aEvents", ARTICLE, "id", KeyType.BIGINT, "a_events",
                "bigint", new TableName("public", "event_a"), "article_id", null, null);
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(events, aEvents)))
                .hasMessageContaining("countercache: 2 problems with the @CounterCache declarations:")
                .hasMessageContaining("@CounterCache on Article.events: table public.event has child tables (partitions"
                        + " or INHERITS), and a statement that names a child fires none of its triggers")
                .hasMessageContaining("@CounterCache on Article.aEvents: table public.event_a is a partition or child"
                        + " of another table, and a statement that names the parent fires none of its triggers")
                .hasMessageContaining("fix: count a table that has no child tables and is no child");
        assertThat(db.queryLong("SELECT count(*) FROM countercache.counter")).as("counters installed").isZero();

        CounterDefinition rackComments = new CounterDefinition("Rack.comments", new TableName("public", "rack"), "id",
                KeyType.BIGINT, "events", "bigint", COMMENT, "article_id", null, null);
        BlogSchema.install(db, List.of(ARTICLE_COMMENTS, USER_PUBLIC, ARTICLE_LIKES, ARTICLE_PUBLIC, rackComments));
        db.execute("INSERT INTO rack VALUES (1, 0); INSERT INTO blog_article (id) VALUES (1); INSERT INTO blog_user (id) VALUES (1);"
                + " INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public')");
        assertExact();
        assertThat(db.queryLong("SELECT events FROM rack_0 WHERE id = 1")).as("a partitioned target").isOne();

        assertRefused("CREATE TABLE remark (LIKE blog_comment) PARTITION BY LIST (publish_status);"
                        + " ALTER TABLE blog_comment ALTER COLUMN id DROP IDENTITY;"   // a partition may have none
                        + " ALTER TABLE remark ATTACH PARTITION blog_comment FOR VALUES IN ('public', 'private')",
                "@CounterCache on Article.totalComments: table public.blog_comment is a partition or child");
        assertRefused("CREATE TABLE old_comment () INHERITS (blog_comment)",
                "@CounterCache on Article.totalComments: table public.blog_comment has child tables");
        db.execute("CREATE TEMP TABLE scratch (id int); CREATE TABLE plain_parent (id int); CREATE TABLE plain_child ()"
                + " INHERITS (plain_parent)");   // tables no counter reads pass
    }

    @Test
    void aMigrationThatBreaksACounterIsRefusedWithTheCountersItBreaks() throws Exception {
        BlogSchema.install(db, BLOG);

        assertRefused("ALTER TABLE blog_comment RENAME COLUMN publish_status TO status",
                "countercache: ALTER TABLE would break 2 counters:",
                "@CounterCache on Article.totalPublicComments: where = \"publish_status = 'public'\" is not one boolean"
                        + " expression over public.blog_comment: column \"publish_status\" does not exist",
                "@CounterCache on User.totalPublicComments: where");
        assertRefused("ALTER TABLE blog_comment ALTER COLUMN article_id TYPE integer",
                "countercache: ALTER TABLE would break 3 counters:",
                "@CounterCache on Article.totalComments: foreign key column public.blog_comment.article_id is integer,"
                        + " the key it points at is bigint");
        assertRefused("ALTER TABLE blog_comment ALTER COLUMN likes TYPE double precision",
                "@CounterCache on Article.totalLikes: sum column public.blog_comment.likes is double precision");
        assertRefused("ALTER TABLE blog_article RENAME COLUMN total_likes TO likes",
                "@CounterCache on Article.totalLikes: counter column public.blog_article.total_likes is missing");
        assertRefused("ALTER TABLE blog_article ALTER COLUMN total_comments TYPE integer",
                "@CounterCache on Article.totalComments: counter column public.blog_article.total_comments is integer,"
                        + " narrower than the field's bigint",
                "fix: ALTER TABLE public.blog_article ALTER COLUMN total_comments TYPE bigint");
        assertRefused("ALTER TABLE blog_comment RENAME TO remark",
                "countercache: ALTER TABLE would break 4 counters:",
                "@CounterCache on Article.totalComments: source table public.blog_comment does not exist");
        assertRefused("DROP TABLE blog_user CASCADE",
                "countercache: DROP TABLE would break 1 counter:",
                "@CounterCache on User.totalPublicComments: target table public.blog_user does not exist");

        // changes that break no counter pass
        db.execute("ALTER TABLE blog_comment ADD COLUMN edited boolean; ALTER TABLE blog_comment RENAME COLUMN message TO body;"
                + " CREATE TABLE scratch (id int); DROP TABLE scratch");

        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + " INSERT INTO blog_comment (creator_id, article_id, publish_status, likes) VALUES (1, 1, 'public', 2)");
        assertExact();
        assertThat(db.queryRows("SELECT total_comments, total_public_comments, total_likes FROM blog_article"))
                .containsExactly(List.of("1", "1", "2"));
    }

    /** A min, a max and a distinct count read a column each, and a min or max an index too: the guard keeps all. */
    @Test
    void aMigrationThatBreaksAMinMaxOrDistinctCounterIsRefused() throws Exception {
        BlogSchema.install(db, List.of(ARTICLE_MOST_LIKES, ORDER_CHEAPEST, ARTICLE_COMMENTERS));

        assertRefused("DROP INDEX blog_comment_article_likes",
                "countercache: DROP INDEX would break 1 counter:",
                "@CounterCache on Article.mostLikes: public.blog_comment has no index on (article_id, likes)",
                "fix: CREATE INDEX ON public.blog_comment (article_id, likes)");
        assertRefused("ALTER TABLE shop_line ALTER COLUMN price TYPE double precision",
                "@CounterCache on Order.cheapestLine: min column public.shop_line.price is double precision");
        assertRefused("ALTER TABLE blog_comment DROP COLUMN creator_id",
                "@CounterCache on Article.commenters: distinct column public.blog_comment.creator_id is missing");

        // an index no counter needs may go, and so may one a counter needs once another serves it
        db.execute("CREATE INDEX blog_comment_message ON blog_comment (message); DROP INDEX blog_comment_message;"
                + " CREATE INDEX blog_comment_article_likes_2 ON blog_comment (article_id, likes, id);"
                + " DROP INDEX blog_comment_article_likes");

        db.execute("INSERT INTO blog_user (id) VALUES (1), (2); INSERT INTO blog_article (id) VALUES (1);"
                + " INSERT INTO blog_comment (creator_id, article_id, publish_status, likes)"
                + " VALUES (1, 1, 'public', 2), (2, 1, 'public', 7), (2, 1, 'public', 1)");
        assertExact();
        assertThat(db.queryRows("SELECT most_likes, commenters FROM blog_article")).containsExactly(List.of("7", "2"));
    }

    @Test
    void aMigrationThatChangesACountedColumnOnPurposeRunsBeforeTheRegeneratedChangelog() throws Exception {
        BlogSchema.install(db, BLOG);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1);"
                + " INSERT INTO blog_comment (creator_id, article_id, publish_status) VALUES (1, 1, 'public'), (1, 1, 'draft')");

        // the user's changeset, entity renamed with it: then the regenerated countercache changelog
        db.executeInTransaction("SET LOCAL countercache.ddl_guard = off;"
                + " ALTER TABLE blog_comment RENAME COLUMN publish_status TO visibility");
        String where = "visibility = 'public'";
        BlogSchema.install(db, List.of(ARTICLE_COMMENTS, ARTICLE_LIKES,
                new CounterDefinition("Article.totalPublicComments", ARTICLE, "id", KeyType.BIGINT,
                        "total_public_comments", "bigint", COMMENT, "article_id", where, null),
                new CounterDefinition("User.totalPublicComments", BlogSchema.USER, "id", KeyType.BIGINT,
                        "total_public_comments", "bigint", COMMENT, "creator_id", where, null)));

        db.execute("INSERT INTO blog_comment (creator_id, article_id, visibility) VALUES (1, 1, 'public');"
                + " UPDATE blog_comment SET visibility = 'public' WHERE visibility = 'draft'");
        assertExact();
        assertThat(db.queryRows("SELECT total_comments, total_public_comments FROM blog_article"))
                .containsExactly(List.of("3", "3"));
        assertThat(db.queryLong("SELECT total_public_comments FROM blog_user")).isEqualTo(3);
        // the guard is on again once that transaction ended
        assertRefused("ALTER TABLE blog_comment DROP COLUMN visibility", "would break 2 counters");
    }

    /** A declaration changed in the code and not yet applied: the boot check names what changed, or says what may have. */
    @Test
    void theBootCheckNamesWhatADeclarationChanged() throws Exception {
        BlogSchema.install(db, BLOG);
        try (var c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, List.of(ARTICLE_COMMENTS.withStrategy(Strategy.UNLOGGED, 0),
                    ARTICLE_LIKES.withTouch("updated_at")), List.of()))
                    .containsExactly("Article.totalComments: strategy is \"unlogged\" in the entity but \"queue\" in the database",
                            "Article.totalLikes: the installed definition differs (hash "
                                    + ARTICLE_LIKES.definitionHash() + ", declared "
                                    + ARTICLE_LIKES.withTouch("updated_at").definitionHash() + "): its sum, min, max,"
                                    + " distinct, slots, touch or associations changed; apply the changelog generated"
                                    + " from this code");
        }
    }

    /** Rolls the queue up and compares every counter with a recount of its source. */
    private void assertExact() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta")).isZero();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    private void assertRefused(String ddl, String... expected) {
        assertThatThrownBy(() -> db.executeInTransaction(ddl))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(expected))
                .satisfies(e -> assertThat(((PSQLException) e).getServerErrorMessage().getHint())
                        .contains("SET LOCAL countercache.ddl_guard = off"));
    }

    /**
     * The one checker: what the database can tell on its own reaches the boot check too. A trigger switched to fire
     * for replicas only (which the DDL guard lets through for the migrator's own statement with the guard off), a
     * capture trigger pointed at another function, and a counted column retyped with the guard off.
     */
    @Test
    void theBootCheckReportsTriggersThatWouldMissWritesAndAColumnRetypedBehindTheGuard() throws Exception {
        BlogSchema.install(db, BLOG);
        db.execute("CREATE FUNCTION public.noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;"
                + "BEGIN; SET LOCAL countercache.ddl_guard = off;"
                + " ALTER TABLE blog_comment ENABLE REPLICA TRIGGER countercache_update;"
                + " ALTER TABLE blog_comment ALTER COLUMN likes TYPE double precision;"
                + " CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON blog_comment"
                + " REFERENCING OLD TABLE AS countercache_old FOR EACH STATEMENT EXECUTE FUNCTION public.noop(); COMMIT");
        try (var c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, BLOG, List.of()))
                    .contains("@CounterCache on Article.totalComments: capture triggers of public.blog_comment:"
                            + " countercache_delete calls another function, countercache_update fires for replicas only")
                    .anyMatch(p -> p.startsWith("@CounterCache on Article.totalLikes: sum column public.blog_comment.likes"
                            + " is double precision"));
        }
        assertThatThrownBy(() -> db.execute("ALTER TABLE blog_comment ADD COLUMN note text"))
                .as("the DDL guard refuses the migrator's next statement on the table while its triggers are off")
                .hasMessageContaining("countercache_update fires for replicas only");
        db.execute("BEGIN; SET LOCAL countercache.ddl_guard = off; ALTER TABLE blog_comment ALTER COLUMN likes TYPE integer;"
                + " COMMIT");
        BlogSchema.install(db, BLOG);   // the changelog again: the triggers are rebuilt from the catalog
        try (var c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, BLOG, List.of())).isEmpty();
        }
    }
}
