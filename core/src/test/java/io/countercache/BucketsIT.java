package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.TableName;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static io.countercache.BlogSchema.ARTICLE_DAY_COMMENTS;
import static io.countercache.BlogSchema.ARTICLE_HOUR_LIKES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Counters per bucket ({@code BlogSchema.ARTICLE_DAY_COMMENTS}: an article's comments per day in Paris, kept in a
 * date; {@code ARTICLE_HOUR_LIKES}: its likes per hour, in a timestamptz): the rollup creates a bucket's row, every
 * write moves the count of the bucket its time falls in, and each bucket equals a recount of its rows.
 */
class BucketsIT {

    private static final String BUCKETS_COUNTED = "SELECT count(DISTINCT (article_id,"
            + " (created_at AT TIME ZONE 'Europe/Paris')::date)) FROM blog_comment";
    private static final String DAYS = "SELECT article_id, day::text, comments FROM blog_article_day ORDER BY 1, 2";

    private TestDatabase db;

    private void install(Strategy strategy) throws Exception {
        db = TestPostgres.newDatabase(BucketsIT.class);
        BlogSchema.create(db, strategy, BlogSchema.EVERY);
        db.execute("INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);");
    }

    private void comment(long article, String at, int likes) {
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes, created_at) VALUES (1, "
                + article + ", 'public', " + likes + ", " + at + ")");
    }

    private void assertExact() {
        BlogSchema.assertExactWithoutDrift(db);
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED"})
    void everyWriteMovesTheCountOfTheBucketItsTimeFallsIn(Strategy strategy) throws Exception {
        install(strategy);
        // 23:30 and 00:30 in Paris: two days; a comment without a time counts for no bucket
        comment(1, "'2026-11-25 22:30Z'", 1);
        comment(1, "'2026-11-25 23:30Z'", 2);
        comment(2, "NULL", 5);
        assertThat(db.queryRows("SELECT value::bigint FROM countercache.exact(" + ARTICLE_DAY_COMMENTS.id() + ", NULL,"
                + " ARRAY[countercache.bucket_key(1, '2026-11-26'::date), countercache.bucket_key(2, '2026-11-26'::date)])"
                + " ORDER BY target_uuid")).as("exact reads of buckets with no row yet")
                .containsExactly(List.of("1"), List.of("0"));
        assertExact();
        assertThat(db.queryRows(DAYS)).containsExactly(List.of("1", "2026-11-25", "1"), List.of("1", "2026-11-26", "1"));
        assertThat(db.queryRows("SELECT article_id, hour, likes FROM blog_article_hour ORDER BY 2")).hasSize(2);

        db.execute("UPDATE blog_comment SET created_at = created_at + interval '1 hour'");   // both on the 26th now
        assertExact();
        assertThat(db.queryRows(DAYS)).containsExactly(List.of("1", "2026-11-25", "0"), List.of("1", "2026-11-26", "2"));

        db.execute("UPDATE blog_comment SET article_id = 2, likes = likes + 1 WHERE likes = 2;"  // reparent, and a sum
                + "UPDATE blog_comment SET created_at = '2026-11-20Z' WHERE created_at IS NULL");
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, likes, created_at)"
                + " SELECT 1, 1 + g % 2, 'public', g % 3, '2026-01-01Z'::timestamptz + g * interval '7 hours'"
                + " FROM generate_series(1, 3000) g");                                               // a bulk insert
        assertExact();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_day")).isGreaterThan(800);

        db.execute("DELETE FROM blog_comment WHERE id % 3 = 0; UPDATE blog_comment SET created_at = NULL WHERE id % 5 = 0");
        assertExact();
        db.execute("TRUNCATE blog_comment");
        assertExact();
        assertThat(db.queryLong("SELECT sum(comments) FROM blog_article_day")).isZero();
    }

    @Test
    void aBucketRowDeletedOrWrongComesBackExactAndARecountCreatesMissingRows() throws Exception {
        db = TestPostgres.newDatabase(BucketsIT.class);
        db.execute(BlogSchema.TABLES + "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status, created_at)"
                + " SELECT 1, 1 + g % 2, 'public', '2026-11-01Z'::timestamptz + g * interval '5 hours'"
                + " FROM generate_series(1, 200) g");
        // installed over rows that exist: the install's recount queues each bucket's count, the rollup makes its row
        BlogSchema.install(db, BlogSchema.EVERY);
        db.execute("CALL countercache.run_recounts()");
        assertExact();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_day")).isEqualTo(db.queryLong(BUCKETS_COUNTED));

        db.execute("DELETE FROM blog_article_day WHERE day = '2026-11-05'");   // its counts go back to the queue
        db.execute("UPDATE blog_article_day SET comments = 99 WHERE day = '2026-11-06' AND article_id = 1");
        assertThat(db.queryRows("SELECT key, stored FROM countercache.drift(" + ARTICLE_DAY_COMMENTS.id() + ")"))
                .as("the deleted buckets' counts are pending, not drift").containsExactly(List.of(
                        db.queryRows("SELECT countercache.bucket_key(1, '2026-11-06'::date)").get(0).get(0), "99"));
        // recounted in batches of 3 buckets, each reading the comments of its articles only; one article is negative,
        // so the order of keys wraps (a negative parent's keys come after every other)
        db.execute("INSERT INTO blog_article (id) VALUES (-7); INSERT INTO blog_comment (creator_id, article_id,"
                + " publish_status, created_at) SELECT 1, -7, 'public', '2026-11-01Z'::timestamptz + g * interval '9 hours'"
                + " FROM generate_series(1, 9) g");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        db.execute("UPDATE blog_article_day SET comments = comments + 1 WHERE article_id = -7 AND day = '2026-11-02'");
        db.execute("SELECT countercache.request_recount(" + ARTICLE_DAY_COMMENTS.id() + ")");
        db.execute("CALL countercache.run_recounts(3)");
        assertExact();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_day")).isEqualTo(db.queryLong(BUCKETS_COUNTED));

        // a deleted article takes its comments and its buckets along: no bucket is left over, nor an orphan of one
        db.execute("DELETE FROM blog_article WHERE id = 1");
        assertExact();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_day WHERE article_id = 1")).isZero();
        assertThat(db.queryRows("SELECT k.name, o.target_uuid, o.delta FROM countercache.orphan o"
                + " JOIN countercache.counter k ON k.id = o.counter_id WHERE k.bucket_period IS NOT NULL")).isEmpty();
    }

    /**
     * The retention window is counted back on the counter's clock, whatever the session's time zone: 220 days back
     * from today in Paris cross a change of daylight saving time, where counting in UTC lands an hour off midnight,
     * and a bucket inside the window was dropped by the sessions of one zone and kept by those of another.
     */
    @Test
    void theRetentionWindowIsTheSameInEverySessionsTimeZone() throws Exception {
        install(Strategy.QUEUE);
        String cutoff = "SELECT countercache.bucket_cutoff(jsonb_populate_record(k, jsonb_build_object("
                + "'bucket_zone', 'Europe/Paris', 'bucket_period', '1 day', 'bucket_retention', 220))) ="
                + " (date_trunc('day', now() AT TIME ZONE 'Europe/Paris') - interval '220 days') AT TIME ZONE 'Europe/Paris'"
                + " FROM countercache.counter k WHERE k.id = " + ARTICLE_HOUR_LIKES.id();
        try (java.sql.Connection c = db.dataSource().getConnection(); java.sql.Statement st = c.createStatement()) {
            for (String zone : List.of("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata")) {
                st.execute("SET TimeZone = '" + zone + "'");
                try (java.sql.ResultSet rs = st.executeQuery(cutoff)) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).as("midnight in Paris 220 days ago, in a session of " + zone).isTrue();
                }
            }
        }
        comment(1, "'infinity'", 2);   // in no period: counted by the plain counters only, and no write fails
        comment(1, "'-infinity'", 2);
        assertExact();
    }

    /**
     * A retention of 3 days keeps today's bucket and the three before it. Installed over rows that exist, older
     * buckets are never made; set on a counter whose old buckets exist, pruning deletes them with what is queued for
     * them; a late row for an old day is consumed without effect; and the buckets kept equal their recount.
     */
    @Test
    void bucketsOlderThanTheRetentionArePrunedAndNeverComeBack() throws Exception {
        db = TestPostgres.newDatabase(BucketsIT.class);
        db.execute(BlogSchema.TABLES + "INSERT INTO blog_user (id) VALUES (1); INSERT INTO blog_article (id) VALUES (1), (2);"
                + "INSERT INTO blog_comment (creator_id, article_id, publish_status, created_at)"
                + " SELECT 1, 1 + g % 2, 'public', now() - g * interval '7 hours' FROM generate_series(0, 40) g");
        CounterDefinition.Bucket day = ARTICLE_DAY_COMMENTS.bucket();
        TableName table = ARTICLE_DAY_COMMENTS.target();
        CounterDefinition kept = ARTICLE_DAY_COMMENTS.withBucket(table, new CounterDefinition.Bucket(day.sourceColumn(),
                day.period(), day.zone(), day.parentColumn(), day.startColumn(), 3));
        String oldest = "SELECT count(*) FROM blog_article_day WHERE day < (now() AT TIME ZONE 'Europe/Paris')::date - 3";
        String offInWindow = """
                SELECT x.article_id, x.day, d.comments, x.n
                  FROM (SELECT article_id, (created_at AT TIME ZONE 'Europe/Paris')::date AS day, count(*) AS n
                          FROM blog_comment GROUP BY 1, 2) x
                  FULL JOIN blog_article_day d USING (article_id, day)
                 WHERE coalesce(x.day, d.day) >= (now() AT TIME ZONE 'Europe/Paris')::date - 3
                   AND coalesce(d.comments, 0) <> coalesce(x.n, 0)""";

        BlogSchema.install(db, List.of(ARTICLE_DAY_COMMENTS));          // every bucket, then a retention of 3
        db.execute("CALL countercache.run_recounts()");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        assertThat(db.queryLong(oldest)).isPositive();
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, created_at)"
                + " VALUES (1, 1, 'public', now() - interval '9 days')");    // queued for an old bucket
        BlogSchema.install(db, List.of(kept));
        assertThat(db.queryLong("SELECT countercache.prune_buckets(1000)")).isPositive();
        assertThat(db.queryLong(oldest)).isZero();
        assertThat(db.queryLong("SELECT count(*) FROM countercache.delta WHERE countercache.key_start(target_uuid)"
                + " < now() - interval '5 days'")).as("deltas of old buckets").isZero();

        db.execute("CALL countercache.run_recounts()");
        db.execute("INSERT INTO blog_comment (creator_id, article_id, publish_status, created_at)"
                + " VALUES (1, 2, 'public', now() - interval '8 days'), (1, 2, 'public', now())");   // late, and today
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // drain
        }
        assertThat(db.queryLong(oldest)).as("old buckets made again").isZero();
        assertThat(db.queryRows(offInWindow)).as("buckets kept that differ from their recount").isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.drift(" + kept.id() + ")")).isEmpty();
        assertThat(db.queryLong("SELECT count(*) FROM blog_article_day")).isBetween(4L, 10L);
    }

    /**
     * Two rounds hold deltas of one bucket that has no row yet: the first creates it, the second waits for that
     * insert, then leaves the row to it (ON CONFLICT DO NOTHING) and adds its own delta once it sees the row. Without
     * the conflict clause the second round's insert fails with a unique violation and its delta is dead-lettered.
     */
    @Test
    void twoRoundsThatCreateOneBucketRowBothCountInIt() throws Exception {
        install(Strategy.QUEUE);
        try (Sessions sessions = new Sessions(db.dataSource())) {
            Session first = sessions.open("first round"), second = sessions.open("second round");
            sessions.open("in flight").run(BlogSchema.A_ROUND_IN_FLIGHT);   // so that the two rounds overlap
            comment(1, "'2026-11-26 10:00Z'", 0);
            first.run("BEGIN");
            assertThat(first.queryLong("SELECT countercache.rollup(1000)")).isPositive();   // creates the row, uncommitted
            comment(1, "'2026-11-26 11:00Z'", 0);
            Step waiting = second.start("SELECT countercache.rollup(1000)");
            sessions.awaitWaiting(second);                                                  // on the first's index entry
            first.run("COMMIT");
            assertThat(waiting.await().get(0).get(0)).isNotEqualTo("0");
        }
        assertThat(db.queryRows(DAYS)).containsExactly(List.of("1", "2026-11-26", "2"));
        assertExact();
    }

    /**
     * A new bucket row's foreign key check locks its parent FOR KEY SHARE, which an application holding the parent
     * FOR UPDATE would make the round wait for (until its lock timeout gives the table up, the deltas still queued).
     * The round locks the parents first, skipping those held, so it does not wait: the held parent's bucket gets no
     * row this round, its sums become orphans, and they are applied once the parent is free.
     */
    @Test
    void aRoundCreatesNoBucketRowOfAParentTheApplicationHoldsAndDoesNotWaitForIt() throws Exception {
        install(Strategy.QUEUE);
        String queued = "SELECT count(*) FROM countercache.delta WHERE counter_id = " + ARTICLE_DAY_COMMENTS.id();
        String orphans = "SELECT count(*) FROM countercache.orphan WHERE counter_id = " + ARTICLE_DAY_COMMENTS.id();
        try (Sessions sessions = new Sessions(db.dataSource())) {
            Session app = sessions.open("application"), round = sessions.open("round");
            comment(1, "'2026-11-26 10:00Z'", 0);
            comment(2, "'2026-11-26 10:00Z'", 0);
            app.run("BEGIN; SELECT FROM blog_article WHERE id = 1 FOR UPDATE");
            round.run("SELECT countercache.rollup(1000)");
            assertThat(db.queryRows(DAYS)).as("only the free parent's bucket").containsExactly(
                    List.of("2", "2026-11-26", "1"));
            assertThat(db.queryLong(queued)).as("deltas of a table the round gave up").isZero();
            assertThat(db.queryLong(orphans)).isEqualTo(1);
            app.run("COMMIT");
        }
        assertExact();
        assertThat(db.queryRows(DAYS)).containsExactly(List.of("1", "2026-11-26", "1"), List.of("2", "2026-11-26", "1"));
    }

    @Test
    void whatABucketCannotBeIsRefusedWithTheFix() throws Exception {
        db = TestPostgres.newDatabase(BucketsIT.class);
        db.execute(BlogSchema.TABLES);
        CounterDefinition.Bucket hourly = new CounterDefinition.Bucket("created_at", "1 hour", "UTC", "article_id", "day");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_DAY_COMMENTS.withBucket(
                new TableName("public", "blog_article_day"), hourly))))
                .hasMessageContaining("@CounterCache on ArticleDay.comments: bucket start public.blog_article_day.day is"
                        + " a date, too coarse for a period of 01:00:00")
                .hasMessageContaining("keep the start of a period shorter than a day in a timestamp");
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_DAY_COMMENTS.withStrategy(Strategy.DIRECT, 0))))
                .hasMessageContaining("strategy direct cannot keep a counter per bucket");
        CounterDefinition.Bucket paris = ARTICLE_DAY_COMMENTS.bucket();
        assertThatThrownBy(() -> BlogSchema.install(db, List.of(ARTICLE_DAY_COMMENTS.withBucket(
                new TableName("public", "blog_article_day"), new CounterDefinition.Bucket("message", paris.period(),
                        "Mars/Olympus", paris.parentColumn(), paris.startColumn())))))
                .hasMessageContaining("time zone 'Mars/Olympus' is unknown")
                .hasMessageContaining("bucket column public.blog_comment.message is text");
    }
}
