package io.countercache.hibernate;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exact reads of buckets whose start Hibernate maps otherwise than the column keeps it, with the JVM, and so the
 * JDBC session, in Paris: a {@code LocalDateTime} in a {@code timestamptz} column (an instant, bound as a wall time
 * there) and an {@code Instant} in a {@code timestamp} column. The key the read asks for is the one the row has.
 */
class HibernateBucketZonesIT {

    private static final List<Class<?>> MODEL = List.of(Channel.class, Message.class, ChannelWallHour.class,
            ChannelInstantHour.class);
    private static TimeZone before;
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Europe/Paris"));
        db = TestPostgres.newDatabase(HibernateBucketZonesIT.class);
        emf = Units.boot(db, "bucketzones", MODEL);
    }

    @AfterAll
    static void close() {
        if (emf != null) {
            emf.close();
        }
        TimeZone.setDefault(before);
    }

    @Test
    void exactReadsFindTheBucketTheRowHasWhateverTheStartsJavaType() {
        Instant at = Instant.parse("2026-11-20T11:20:00Z");   // 12:20 in Paris
        emf.runInTransaction(em -> {
            Channel channel = new Channel();
            channel.id = 1L;
            em.persist(channel);
            for (long i = 1; i <= 2; i++) {
                Message m = new Message();
                m.id = i;
                m.channel = channel;
                m.sentAt = at.plusSeconds(i);
                em.persist(m);
            }
        });
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        emf.runInTransaction(em -> {   // one more, pending: an exact read adds it
            Message m = new Message();
            m.id = 3L;
            m.channel = em.find(Channel.class, 1L);
            m.sentAt = at.plusSeconds(3);
            em.persist(m);
        });
        ChannelWallHour wall = emf.callInTransaction(em -> em.createQuery("SELECT h FROM ChannelWallHour h"
                + " WHERE h.channel.id = 1", ChannelWallHour.class).getSingleResult());
        ChannelInstantHour instant = emf.callInTransaction(em -> em.createQuery("SELECT h FROM ChannelInstantHour h"
                + " WHERE h.channel.id = 1", ChannelInstantHour.class).getSingleResult());
        assertThat(wall.messages).isEqualTo(2);
        assertThat(instant.messages).isEqualTo(2);
        long byWall = emf.callInTransaction(em -> CounterCaches.exact(em, ChannelWallHour.class, "messages",
                new ChannelWallHour.Key(1L, wall.hour)));
        long byInstant = emf.callInTransaction(em -> CounterCaches.exact(em, ChannelInstantHour.class, "messages",
                new ChannelInstantHour.Key(1L, instant.hour)));
        assertThat(byWall).as("by " + wall.hour).isEqualTo(3);
        assertThat(byInstant).as("by " + instant.hour).isEqualTo(3);
    }

    /**
     * More ids than one statement may bind parameters (65,535), their starts all distinct, in one read; among them
     * the wall times 02:00 and 03:00 of eight nights the clocks skip 02:00 in Paris, each pair one instant, and both
     * read.
     */
    @Test
    void anExactReadTakesMoreBucketsThanOneStatementHasParameters() {
        Instant at = Instant.parse("2026-11-21T08:00:00Z");
        emf.runInTransaction(em -> {
            Channel channel = new Channel();
            channel.id = 2L;
            em.persist(channel);
            Message m = new Message();
            m.id = 20L;
            m.channel = channel;
            m.sentAt = at;
            em.persist(m);
        });
        LocalDateTime hour = LocalDateTime.ofInstant(at, ZoneId.systemDefault());
        List<ChannelWallHour.Key> keys = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            keys.add(new ChannelWallHour.Key(2L, hour.minusHours(i)));
        }
        Map<ChannelWallHour.Key, Long> read = emf.callInTransaction(em -> CounterCaches.exact(em,
                ChannelWallHour.class, "messages", keys));
        assertThat(read.size()).as("keys read").isEqualTo(keys.size());
        assertThat(read.get(keys.get(0))).isEqualTo(1L);
        assertThat(read.values().stream().filter(v -> v != 0L).count()).as("buckets read other than 0").isEqualTo(1);
    }
}
