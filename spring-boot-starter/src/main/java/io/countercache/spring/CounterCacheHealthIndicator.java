package io.countercache.spring;

import io.countercache.RollupWorker;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;

/**
 * DOWN when counters are not being kept: the first pending delta in queue order is older than
 * {@code countercache.health.max-lag} (no worker runs, or the workers fall behind), or a delta was refused by its target
 * and waits as a dead letter. Details: pending deltas (estimated above 100,000), the age of the first, dead letters. UNKNOWN, which leaves the application's health as it
 * is, when the database is not PostgreSQL (an application tested on H2): nothing keeps counters there. Needs EXECUTE on {@code countercache.queue_state()}
 * (docs/security.md, the reader script).
 */
public class CounterCacheHealthIndicator extends AbstractHealthIndicator {

    private final DataSource dataSource;
    private final Duration maxLag;

    public CounterCacheHealthIndicator(DataSource dataSource, Duration maxLag) {
        super("countercache health check failed");
        this.dataSource = dataSource;
        this.maxLag = maxLag;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            String product = c.getMetaData().getDatabaseProductName();
            if (!"PostgreSQL".equals(product)) {
                builder.unknown().withDetail("reason", "the database is " + product + ", not PostgreSQL: countercache"
                        + " keeps no counters here (as the log said at boot)");
                return;
            }
            check(c, builder);
        }
    }

    private void check(Connection c, Health.Builder builder) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT s.depth, s.oldest_seconds, s.dead_letters FROM countercache.queue_state() s")) {
            ps.setQueryTimeout(RollupWorker.QUEUE_READ_SECONDS);   // DOWN with the error, not a probe hung behind a lock
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long pending = rs.getLong(1), deadLetters = rs.getLong(3);
                double oldest = rs.getDouble(2);
                builder.withDetail("pending", pending).withDetail("oldestPendingSeconds", oldest)
                        .withDetail("deadLetters", deadLetters);
                if (deadLetters > 0) {
                    builder.down().withDetail("reason", deadLetters + " dead letters: a target refused its new value;"
                            + " countercache status (the CLI) or SELECT * FROM countercache.status() shows which"
                            + " counters; fix the cause, then recount the counter");
                } else if (oldest > maxLag.toMillis() / 1000.0) {
                    builder.down().withDetail("reason", "the first pending delta is older than " + maxLag
                            + " (countercache.health.max-lag): the rollup workers fall behind or do not run");
                } else {
                    builder.up();
                }
            }
        }
    }
}
