package io.countercache;

import io.countercache.spi.Installation;
import io.countercache.spi.LimitDefinition;
import io.countercache.testing.Sessions;
import io.countercache.testing.Sessions.Session;
import io.countercache.testing.Sessions.Step;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Limit counters: never more admitted than the limit in force, whatever the concurrency, with one row lock per key
 * and period, through the generated install and the SQL entry points.
 */
class LimitsIT {

    private static TestDatabase db;

    @BeforeAll
    static void install() throws Exception {
        db = TestPostgres.newDatabase(LimitsIT.class);
        try (Connection c = db.dataSource().getConnection()) {
            Installation.apply(c, Installation.units(List.of(), List.of(
                    new LimitDefinition("Customer", "edge", "1 day", 100, "UTC", 2),
                    new LimitDefinition("Customer", "second", "1 second", 20, "UTC", 2),
                    new LimitDefinition("Customer", "changing", "1 day", 300, "Europe/Vienna", 2),
                    new LimitDefinition("Customer", "keys", "1 hour", 1, "UTC", 2))));
        }
    }

    /** 32 threads, each attempting {@code attempts} admissions of a key (or of their own keys), all released at once. */
    private static List<Limits.Admission> hammer(String limit, int attempts, boolean ownKeys, Runnable during)
            throws Exception {
        List<Limits.Admission> results = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            Object key = ownKeys ? UUID.randomUUID() : 42L;
            futures.add(pool.submit(() -> {
                try (Connection c = db.dataSource().getConnection()) {
                    start.await();
                    for (int i = 0; i < attempts; i++) {
                        results.add(Limits.admit(c, limit, key));
                    }
                }
                return null;
            }));
        }
        start.countDown();
        during.run();
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        return results;
    }

    @Test
    void thirtyTwoThreadsAtTheEdgeOfALimitGetExactlyTheLimit() throws Exception {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry meters = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        io.micrometer.core.instrument.Metrics.addRegistry(meters);
        List<Limits.Admission> results;
        try {
            results = hammer("edge", 20, false, () -> { });
        } finally {
            io.micrometer.core.instrument.Metrics.removeRegistry(meters);
        }
        assertThat(results.stream().filter(Limits.Admission::admitted).count()).as("admitted").isEqualTo(100);
        assertThat(meters.get("countercache.limit.admissions").tags("limit", "edge", "outcome", "admitted").counter()
                .count()).as("admissions counted on Micrometer's global registry").isEqualTo(100);
        assertThat(meters.get("countercache.limit.admissions").tags("limit", "edge", "outcome", "rejected").counter()
                .count()).isEqualTo(540);
        assertThat(db.queryRows("SELECT admitted, attempted, rejected FROM countercache.limit_usage_report"
                + " WHERE limit_name = 'edge'")).containsExactly(List.of("100", "640", "540"));
        assertThat(results).filteredOn(Limits.Admission::admitted).allSatisfy(a ->
                assertThat(a.admittedCount()).isLessThanOrEqualTo(a.limit()));
    }

    @Test
    void acrossPeriodBoundariesEachPeriodAdmitsAtMostItsLimit() throws Exception {
        List<Limits.Admission> results = hammer("second", 150, false, () -> { });
        Map<Instant, Long> admittedPerPeriod = new ConcurrentHashMap<>();
        results.stream().filter(Limits.Admission::admitted).forEach(a -> admittedPerPeriod.merge(a.periodStart(), 1L, Long::sum));
        assertThat(admittedPerPeriod.values()).as("admitted per one-second period").allSatisfy(n ->
                assertThat(n).isLessThanOrEqualTo(20));
        assertThat(db.queryLong("SELECT sum(admitted) FROM countercache.limit_usage WHERE limit_name = 'second'"))
                .isEqualTo(results.stream().filter(Limits.Admission::admitted).count());
    }

    @Test
    void whileTheKeysLimitChangesEveryAdmissionRespectsTheLimitInForce() throws Exception {
        AtomicBoolean lowered = new AtomicBoolean();
        List<Limits.Admission> results = hammer("changing", 30, false, () -> {
            try {
                Thread.sleep(20);
                db.execute("SELECT countercache.set_key_limit('changing', '42', 250, now() - interval '1 minute')");
                lowered.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(lowered).isTrue();
        assertThat(results).filteredOn(Limits.Admission::admitted).allSatisfy(a ->
                assertThat(a.admittedCount()).as("count after an admission, against its limit")
                        .isLessThanOrEqualTo(a.limit()));
        assertThat(results.stream().filter(a -> a.limit() == 250).count()).as("admissions judged by the new limit")
                .isPositive();
        assertThat(results.stream().filter(Limits.Admission::admitted).count()).isLessThanOrEqualTo(300);
    }

    @Test
    void differentKeysNeverWaitForEachOtherAndARollbackTakesTheAdmissionBack() throws Exception {
        try (Sessions s = new Sessions(db.dataSource())) {
            Session a = s.open("a"), b = s.open("b"), c = s.open("c");
            a.run("BEGIN; SELECT countercache.admit('keys', 'k1')");
            assertThat(b.run("SELECT countercache.admit('keys', 'k2')").get(0).get(0)).isEqualTo("t");
            Step same = c.start("SELECT countercache.admit('keys', 'k1')");
            s.awaitWaiting(c);                                   // the one row lock of k1's period
            a.run("ROLLBACK");
            assertThat(same.await().get(0).get(0)).as("admitted, since the first was rolled back").isEqualTo("t");
            assertThat(c.run("SELECT countercache.admit('keys', 'k1')").get(0).get(0)).isEqualTo("f");
        }
        assertThat(db.queryRows("SELECT key, admitted, attempted FROM countercache.limit_usage WHERE limit_name = 'keys'"
                + " ORDER BY key")).containsExactly(List.of("k1", "1", "2"), List.of("k2", "1", "1"));
    }

    @Test
    void anAdmissionIsJudgedByTheLimitInForceWhenItIsMadeNeverByAStaleOne() throws Exception {
        try (Sessions s = new Sessions(db.dataSource())) {
            Session admin = s.open("admin"), client = s.open("client");
            admin.run("BEGIN; SELECT countercache.set_key_limit('keys', 'gold', 0, now() - interval '1 minute')");
            client.run("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT 1");
            Step admit = client.start("SELECT a.admitted, a.max_admits FROM countercache.admit_report('keys', 'gold') a");
            s.awaitWaiting(client);                              // the change of this key holds its admissions
            admin.run("COMMIT");
            assertThat(admit.await()).as("judged by the limit committed meanwhile")
                    .containsExactly(List.of("f", "0"));
            client.run("COMMIT");
        }
    }

    /** A pool that hands out connections inside a transaction (auto-commit off) still keeps each admission. */
    @Test
    void anAdmissionThroughAPoolWithoutAutoCommitIsKept() {
        javax.sql.DataSource inTransaction = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object result = method.invoke(db.dataSource(), args);
                    if (result instanceof Connection c) {
                        c.setAutoCommit(false);
                    }
                    return result;
                });
        String key = "pooled-" + UUID.randomUUID();
        assertThat(Limits.admit(inTransaction, "edge", key).admittedCount()).isOne();
        assertThat(Limits.admit(inTransaction, "edge", key).admittedCount()).as("the first was committed").isEqualTo(2);
    }

    @Test
    void badInputGetsAClearError() {
        assertThatThrownBy(() -> db.queryLong("SELECT countercache.admit('nope', 'k')::int"))
                .hasMessageContaining("no limit named 'nope'")
                .hasMessageContaining("the limits are: 'changing', 'edge', 'keys', 'second'");
        assertThatThrownBy(() -> Limits.admit(db.dataSource(), "nope", "k"))   // the hint reaches the Java caller
                .hasMessageContaining("no limit named 'nope'")
                .hasMessageContaining("the limits are: 'changing', 'edge', 'keys', 'second'");
        assertThatThrownBy(() -> db.execute("SELECT countercache.define_limit('x', interval '1 day', -1)"))
                .hasMessageContaining("the limit must be 0 or more, got -1");
        assertThatThrownBy(() -> db.execute("SELECT countercache.define_limit('x', interval '1 month 2 days', 5)"))
                .hasMessageContaining("mixes months with smaller units");
        assertThatThrownBy(() -> db.execute("SELECT countercache.define_limit('x', interval '500 milliseconds', 5)"))
                .hasMessageContaining("is not a whole number of seconds");
        assertThatThrownBy(() -> db.execute("SELECT countercache.define_limit('x', interval '1 day', 5, 'Mars/Olympus')"))
                .hasMessageContaining("unknown time zone 'Mars/Olympus'");
        db.execute("SELECT countercache.set_key_limit('edge', 'vip', 1000, '2030-01-01', '2030-02-01')");
        assertThatThrownBy(() -> db.execute("SELECT countercache.set_key_limit('edge', 'vip', 5, '2030-01-15', NULL)"))
                .hasMessageContaining("overlaps the range");
        assertThatThrownBy(() -> Limits.admit(db.dataSource(), "edge", new Object()))
                .hasMessageContaining("a limit key must be a String, a Number or a UUID");
        // an older snapshot would judge by a limit a committed change replaced
        assertThatThrownBy(() -> db.executeInTransaction("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;"
                + " SELECT countercache.admit('edge', 'k')"))
                .hasMessageContaining("countercache: an admission cannot be counted exactly in a REPEATABLE READ transaction");
    }

    @Test
    void periodsAlignInTheLimitsTimeZoneAndOldCountsArePruned() {
        assertThat(db.queryRows("SELECT (countercache.period_start(interval '1 day', 'Europe/Vienna',"
                + " timestamptz '2026-07-01 23:30:00+00') AT TIME ZONE 'Europe/Vienna')::text,"
                + " (countercache.period_start(interval '3 months', 'UTC', timestamptz '2026-08-18 12:00:00+00')"
                + " AT TIME ZONE 'UTC')::text"))
                .containsExactly(List.of("2026-07-02 00:00:00", "2026-07-01 00:00:00"));
        db.execute("INSERT INTO countercache.limit_usage VALUES ('edge', 'old', now() - interval '10 days', 1, 1, true, 1)");
        assertThat(db.queryLong("SELECT countercache.prune_limit_usage()")).isPositive();
        assertThat(db.queryLong("SELECT count(*) FROM countercache.limit_usage WHERE key = 'old'")).isZero();
    }

    @Test
    void aChangedPeriodTakesEffectWhereIntervalsCompareEqual() throws Exception {
        // interval's = takes '1 month' for '30 days': the change must reach the catalog, and the boot check see it
        List<LimitDefinition> declared = List.of(new LimitDefinition("Customer", "monthly", "1 month", 10, "UTC", 2));
        try (Connection c = db.dataSource().getConnection()) {
            db.execute("SELECT countercache.define_limit('monthly', interval '30 days', 10)");
            assertThat(CatalogCheck.limitDifferences(c, declared)).singleElement().asString()
                    .contains("period is \"1 month\" in the code but \"30 days\" in the database");
            db.execute("SELECT countercache.define_limit('monthly', interval '1 month', 10)");
            assertThat(db.queryRows("SELECT period::text FROM countercache.limits() WHERE name = 'monthly'"))
                    .containsExactly(List.of("1 mon"));
            assertThat(CatalogCheck.limitDifferences(c, declared)).isEmpty();
        } finally {
            db.execute("DELETE FROM countercache.limit_def WHERE name = 'monthly'");
        }
    }

    @Test
    void anAdmissionCountsInThePeriodOfTheMomentItIsMadeNotOfItsTransactionsStart() throws Exception {
        // "second" has periods of one second; this transaction stays open across a turn of one
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Limits.Admission first = Limits.admit(c, "second", "open");
            Thread.sleep(1_100);
            Limits.Admission later = Limits.admit(c, "second", "open");
            c.commit();
            assertThat(later.periodStart()).isAfter(first.periodStart());
            assertThat(later.admittedCount()).as("the first of its period").isEqualTo(1);
        } finally {
            db.execute("DELETE FROM countercache.limit_usage WHERE key = 'open'");   // the other tests count "second"
        }
    }

    @Test
    void periodsEndAndArePrunedOnTheLimitsClockWhateverTheSessionsTimeZone() throws Exception {
        // a month in Vienna, read and pruned by a session in UTC: a month's length in UTC differs from Vienna's by the
        // hour of a DST change. The retention reaches back to a month whose start has the other offset, when one has.
        java.time.ZoneId vienna = java.time.ZoneId.of("Europe/Vienna");
        java.time.ZonedDateTime month = java.time.ZonedDateTime.now(vienna).withDayOfMonth(1).toLocalDate()
                .atStartOfDay(vienna);
        int retention = 1;
        while (retention < 12 && month.minusMonths(retention).getOffset().equals(month.getOffset())) {
            retention++;
        }
        String kept = month.minusMonths(retention).toLocalDate() + " 00:00 Europe/Vienna";
        String gone = month.minusMonths(retention + 1).toLocalDate() + " 00:00 Europe/Vienna";
        try (Connection c = db.dataSource().getConnection(); var st = c.createStatement()) {
            st.execute("SET TimeZone = 'UTC'");
            st.execute("SELECT countercache.define_limit('vienna', interval '1 month', 10, 'Europe/Vienna', " + retention + ")");
            st.execute("INSERT INTO countercache.limit_usage VALUES ('vienna', 'march', '2024-03-01 00:00 Europe/Vienna',"
                    + " 1, 1, true, 10), ('vienna', 'kept', '" + kept + "', 1, 1, true, 10),"
                    + " ('vienna', 'gone', '" + gone + "', 1, 1, true, 10)");
            try (var rs = st.executeQuery("SELECT period_end = '2024-04-01 00:00 Europe/Vienna'"
                    + " FROM countercache.limit_usage_report WHERE limit_name = 'vienna' AND key = 'march'")) {
                assertThat(rs.next() && rs.getBoolean(1)).as("March ends at midnight in Vienna").isTrue();
            }
            st.execute("SELECT countercache.prune_limit_usage()");
            try (var rs = st.executeQuery("SELECT string_agg(key, ',' ORDER BY key) FROM countercache.limit_usage"
                    + " WHERE limit_name = 'vienna'")) {
                rs.next();
                assertThat(rs.getString(1)).as("retention " + retention + " keeps " + kept).isEqualTo("kept");
            }
        } finally {
            db.execute("DELETE FROM countercache.limit_usage WHERE limit_name = 'vienna'");
            db.execute("DELETE FROM countercache.limit_def WHERE name = 'vienna'");
        }
    }
}
