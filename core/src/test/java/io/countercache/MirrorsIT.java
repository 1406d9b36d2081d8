package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.TableName;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.stream.Stream;

import static io.countercache.BlogSchema.TAG_PUBLISHED;
import static io.countercache.BlogSchema.TAG_PUBLISHED_LINKS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A where on the far entity of a many-to-many, published articles per tag ({@code BlogSchema.TAG_PUBLISHED}): per link
 * of article_tag, the rollup recomputes whether its article is published ({@code TAG_PUBLISHED_LINKS}, a recomputed
 * count keyed by the link's article_id, which several links share), and the tag sums that over its links. Articles
 * published, unpublished and deleted, links added, removed, re-tagged and moved, in bulk too, end exact under every
 * strategy of the tag's counter; and the interleavings of "A where on the far entity" in docs/architecture.md.
 */
class MirrorsIT {

    private TestDatabase db;
    private Sessions sessions;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(MirrorsIT.class);
        BlogSchema.create(db, strategy, Stream.concat(BlogSchema.ALL.stream(),
                Stream.of(TAG_PUBLISHED_LINKS, TAG_PUBLISHED)).toList());
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2), (3);"
                + "INSERT INTO tag (id) VALUES (1), (2), (3)");
        sessions = new Sessions(db.dataSource());
    }

    @AfterEach
    void closeSessions() throws Exception {
        if (sessions != null) {
            sessions.close();
        }
    }

    private List<List<String>> tags() {
        return db.queryRows("SELECT id, published_articles FROM tag ORDER BY id");
    }

    private long exact(int tag) {
        return db.queryLong("SELECT value FROM countercache.exact(" + TAG_PUBLISHED.id() + ", ARRAY[" + tag + "]::bigint[])");
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void articlesPublishedAndLinksMovedEndExact(Strategy strategy) throws Exception {
        install(strategy);
        db.execute("UPDATE blog_article SET published = true WHERE id = 1;"
                + "INSERT INTO article_tag VALUES (1, 1), (1, 2), (2, 1)");
        assertThat(exact(1)).as("exact before any round: the link's recount less its column").isOne();
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "1"), List.of("3", "0"));

        db.execute("UPDATE blog_article SET published = true WHERE id = 2; UPDATE blog_article SET published = false"
                + " WHERE id = 1");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "0"), List.of("3", "0"));

        db.execute("UPDATE article_tag SET tag_id = 3 WHERE article_id = 2;"        // re-tagged
                + "INSERT INTO article_tag VALUES (3, 3); UPDATE article_tag SET article_id = 3 WHERE article_id = 1"
                + " AND tag_id = 2;"                                                 // moved to another article
                + "UPDATE blog_article SET published = true WHERE id = 3");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "0"), List.of("2", "1"), List.of("3", "2"));

        // in bulk: 300 articles, every other one published, each with one tag, then all re-tagged and half deleted
        db.execute("INSERT INTO blog_article (id, published) SELECT g, g % 2 = 0 FROM generate_series(10, 309) g;"
                + "INSERT INTO article_tag SELECT g, 1 + g % 3 FROM generate_series(10, 309) g");
        BlogSchema.assertExactWithoutDrift(db);
        db.execute("UPDATE article_tag SET tag_id = 1 + tag_id % 3 WHERE article_id >= 10;"
                + "UPDATE blog_article SET published = NOT published WHERE id % 5 = 0;"
                + "DELETE FROM blog_article WHERE id % 7 = 0");                     // its links go with it (cascade)
        BlogSchema.assertExactWithoutDrift(db);

        // a link's column set wrong by hand: drift finds it, a recount queues its touch, the rollup recomputes it
        db.execute("UPDATE article_tag SET countercache_tag__published_articles = 5 WHERE article_id = 2");
        assertThat(db.queryRows("SELECT key FROM countercache.drift(" + TAG_PUBLISHED_LINKS.id() + ")"))
                .containsExactly(List.of("2"));
        db.execute("SELECT countercache.recount(" + TAG_PUBLISHED_LINKS.id() + ")");
        BlogSchema.assertExactWithoutDrift(db);

        db.execute("TRUNCATE article_tag");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(db.queryLong("SELECT sum(published_articles) FROM tag")).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM countercache.orphan")).as("touches of articles without links")
                .isZero();
    }

    /**
     * A link inserted while its article is published, each transaction unable to see the other: the link's insert
     * touches its article, so the round after both commits recomputes it, whichever committed first. Without that
     * touch, the rounds that consumed the publish's touch never saw the link, and its column stayed 0.
     */
    @Test
    void aLinkInsertedWhileItsArticleIsPublishedCountsWhicheverCommitsFirst() throws Exception {
        install(Strategy.QUEUE);
        Session linker = sessions.open("linker"), publisher = sessions.open("publisher"),
                rollup = sessions.open("rollup");
        for (boolean publisherFirst : new boolean[] {true, false}) {
            int article = publisherFirst ? 1 : 2;
            linker.run("BEGIN; INSERT INTO article_tag VALUES (" + article + ", 1)");
            publisher.run("BEGIN; UPDATE blog_article SET published = true WHERE id = " + article);
            (publisherFirst ? publisher : linker).run("COMMIT");
            // the first round consumes the publish's touch, finds no link, and parks it; the second drops it (a key
            // with no row): what counts the link from then on is its own touch
            rollup.run("SELECT countercache.rollup(100)");
            rollup.run("SELECT countercache.rollup(100)");
            (publisherFirst ? linker : publisher).run("COMMIT");
            BlogSchema.assertExactWithoutDrift(db);
        }
        assertThat(tags().get(0)).containsExactly("1", "2");
    }

    /**
     * A round holds a key of a recomputed count only when it holds every link of it: a link a writer holds (a re-tag
     * in progress) makes the key busy, its touch goes back to the queue, and no link of it is recomputed, so none is
     * left behind. The round never waits for the writer. Without the rule, the round recomputed the links it could
     * lock and consumed the touch, and the held link kept its old column.
     */
    @Test
    void aRoundNeitherWaitsForALinkAWriterHoldsNorRecomputesTheOtherLinksWithoutIt() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO article_tag VALUES (1, 1), (1, 2)");
        BlogSchema.assertExactWithoutDrift(db);
        Session retagger = sessions.open("retagger"), rollup = sessions.open("rollup");
        retagger.run("BEGIN; UPDATE article_tag SET tag_id = 3 WHERE article_id = 1 AND tag_id = 2");
        db.execute("UPDATE blog_article SET published = true WHERE id = 1");
        rollup.run("SELECT countercache.rollup(100)");                 // fails the test if it waits
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE counter_id = "
                + TAG_PUBLISHED_LINKS.id())).as("the article's touch, back in the queue").isOne();
        assertThat(db.queryLong("SELECT sum(countercache_tag__published_articles) FROM article_tag"))
                .as("no link of the busy article recomputed").isZero();
        retagger.run("COMMIT");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "0"), List.of("3", "1"));
    }

    /**
     * A new link recomputes every link of its article (they share the key), but a round writes only the rows whose
     * value changes: the new link's. Rewriting the others, as rounds did, cost a row version per link of the article
     * for each new link (about 2 ms per new link of an article of 100, scenario 16 of the benchmarks).
     */
    @Test
    void aNewLinkOfAPublishedArticleIsTheOnlyLinkItsRoundWrites() throws Exception {
        install(Strategy.QUEUE);
        db.execute("UPDATE blog_article SET published = true WHERE id = 1; INSERT INTO article_tag VALUES (1, 1), (1, 2)");
        BlogSchema.assertExactWithoutDrift(db);
        String versions = "SELECT tag_id, xmin::text FROM article_tag WHERE article_id = 1 AND tag_id < 3 ORDER BY 1";
        List<List<String>> before = db.queryRows(versions);
        db.execute("INSERT INTO article_tag VALUES (1, 3)");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "1"), List.of("3", "1"));
        assertThat(db.queryRows(versions)).as("the links whose value stays, as they were").isEqualTo(before);
    }

    /**
     * A link that arrives after the round's locking statement and before its applying statement's snapshot, and is
     * updated after that snapshot, is locked by the applying statement in a version the statement's snapshot does not
     * see, so its update by ctid does not write it (the link's own touch recomputes it later). That is no row a
     * trigger refused: the statement counts as locked only the rows its snapshot sees. Counting every locked row, it
     * raised countercache.unwritten's 09000, and the round retried the table key by key, writing every link again:
     * five writes of links instead of two. The round pauses twice, on advisory locks 8 (reading the links, in the
     * locking statement) and 7 (reading the articles, in the applying statement).
     */
    @Test
    void aLinkLockedInAVersionTheApplyingSnapshotDoesNotSeeIsNoRefusedRow() throws Exception {
        install(Strategy.QUEUE);
        db.execute("INSERT INTO tag (id) VALUES (4); INSERT INTO article_tag VALUES (1, 1), (1, 2)");
        BlogSchema.assertExactWithoutDrift(db);
        db.execute("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'countercache_worker') THEN"
                + " CREATE ROLE countercache_worker; END IF; END $$;" + RolesIT.script("worker")
                + "CREATE FUNCTION pause(lock integer) RETURNS boolean LANGUAGE sql SET lock_timeout = 0"
                + " AS $$ SELECT pg_advisory_lock_shared(lock) IS NOT NULL AND pg_advisory_unlock_shared(lock) $$;"
                + "ALTER TABLE article_tag ENABLE ROW LEVEL SECURITY; ALTER TABLE blog_article ENABLE ROW LEVEL SECURITY;"
                + "CREATE POLICY paused ON article_tag TO countercache_worker USING (pause(8)) WITH CHECK (true);"
                + "CREATE POLICY paused ON blog_article TO countercache_worker USING (pause(7)) WITH CHECK (true);"
                + "CREATE SEQUENCE link_writes; CREATE FUNCTION count_link_write() RETURNS trigger LANGUAGE plpgsql"
                + " SECURITY DEFINER AS $$ BEGIN PERFORM nextval('public.link_writes'); RETURN NEW; END $$;"
                + "CREATE TRIGGER count_link_write BEFORE UPDATE ON article_tag FOR EACH ROW"
                + " WHEN (current_user = 'countercache_worker') EXECUTE FUNCTION count_link_write();"
                + "UPDATE blog_article SET published = true WHERE id = 1");   // a touch of article 1 for the round
        Session holder = sessions.open("holder"), rollup = sessions.open("rollup");
        holder.run("SELECT pg_advisory_lock(7), pg_advisory_lock(8)");
        rollup.run("SET ROLE countercache_worker");
        Step round = rollup.start("SELECT countercache.rollup(100)");
        awaitPause(rollup, 8);                       // in the locking statement: it sees links (1, 1) and (1, 2)
        db.execute("INSERT INTO article_tag VALUES (1, 3)");
        holder.run("SELECT pg_advisory_unlock(8)");
        awaitPause(rollup, 7);                       // in the applying statement, whose snapshot sees (1, 3)
        db.execute("UPDATE article_tag SET tag_id = 4 WHERE article_id = 1 AND tag_id = 3");
        holder.run("SELECT pg_advisory_unlock(7)");
        round.await();
        assertThat(db.queryLong("SELECT last_value FROM link_writes")).as("links the round wrote").isEqualTo(2);
        assertThat(db.queryRows("SELECT tag_id, countercache_tag__published_articles FROM article_tag ORDER BY 1"))
                .as("(1, 4) waits for its own touch").containsExactly(List.of("1", "1"), List.of("2", "1"),
                        List.of("4", "0"));
        db.execute("DROP POLICY paused ON article_tag; DROP POLICY paused ON blog_article");
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "1"), List.of("3", "0"), List.of("4", "1"));
    }

    /** Waits until the session waits for advisory lock {@code lock}, which only pause(lock) takes. */
    private void awaitPause(Session s, int lock) throws Exception {
        String waits = "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted"
                + " AND l.locktype = 'advisory' AND l.objid = " + lock + " AND a.query = 'SELECT countercache.rollup(100)'";
        for (int i = 0; db.queryLong(waits) == 0; i++) {
            assertThat(i).as(s.name() + " pauses on advisory lock " + lock).isLessThan(2_000);
            Thread.sleep(5);
        }
    }

    /** A tag removed while its article is deleted: the delete's cascade waits for the removal and counts once. */
    @Test
    void aTagRemovedWhileItsArticleIsDeletedCountsOnce() throws Exception {
        install(Strategy.QUEUE);
        db.execute("UPDATE blog_article SET published = true; INSERT INTO article_tag VALUES (1, 1), (1, 2), (2, 1)");
        BlogSchema.assertExactWithoutDrift(db);
        Session remover = sessions.open("remover"), deleter = sessions.open("deleter");
        remover.run("BEGIN; DELETE FROM article_tag WHERE article_id = 1 AND tag_id = 1");
        Step delete = deleter.start("DELETE FROM blog_article WHERE id = 1");
        sessions.awaitWaiting(deleter);
        remover.run("COMMIT");
        delete.await();
        BlogSchema.assertExactWithoutDrift(db);
        assertThat(tags()).containsExactly(List.of("1", "1"), List.of("2", "0"), List.of("3", "0"));
    }

    @Test
    void aJoinTableWithoutAnIndexOnTheFarKeyIsRefusedWithItsFix() throws Exception {
        db = TestPostgres.newDatabase(MirrorsIT.class);
        db.execute(BlogSchema.TABLES + "CREATE TABLE tag_article (tag_id integer, article_id bigint,"
                + " PRIMARY KEY (tag_id, article_id))");
        CounterDefinition links = new CounterDefinition("Tag.published (per link)",
                new TableName("public", "tag_article"), "article_id", TAG_PUBLISHED_LINKS.keyType(),
                "countercache_tag__published", "bigint", BlogSchema.ARTICLE, "id", "published", null, Strategy.QUEUE, 0,
                null, TAG_PUBLISHED_LINKS.extreme());
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(links)))
                .hasMessageContaining("public.tag_article has no index on (article_id)")
                .hasMessageContaining("CREATE INDEX ON public.tag_article (article_id)");
        // installed with the index, the index cannot be dropped from under it
        db.execute("CREATE INDEX tag_article_by_article ON tag_article (article_id)");
        BlogSchema.install(db, List.of(links));
        assertThatThrownBy(() -> db.execute("DROP INDEX tag_article_by_article"))
                .hasMessageContaining("Tag.published (per link)").hasMessageContaining("has no index on (article_id)");
        // and a where on the other side of the same links, keyed by tag_id, is refused: one key per join table
        CounterDefinition otherSide = new CounterDefinition("Article.bigTags (per link)",
                new TableName("public", "tag_article"), "tag_id", io.countercache.spi.KeyType.INTEGER,
                "countercache_article__big_tags", "bigint", BlogSchema.TAG, "id", "id > 10", null, Strategy.QUEUE, 0,
                null, new CounterDefinition.Extreme(CounterDefinition.Extreme.COUNT, "id"));
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(links, otherSide)))
                .hasMessageContaining("public.tag_article's rows are counted by article_id already"
                        + " (Tag.published (per link))");
    }
}
