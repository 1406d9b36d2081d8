package io.countercache.hibernate;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Counters per bucket declared on entities: {@code ChannelDay} ({@code @IdClass} with a many-to-one) and
 * {@code ChannelHour} ({@code @EmbeddedId} with {@code @MapsId}); writes through Hibernate, bulk JPQL and native SQL
 * fill the bucket rows the rollup creates, which read as ordinary entities and equal a recount.
 */
class HibernateBucketsIT {

    private static final List<Class<?>> MODEL = List.of(Channel.class, Message.class, ChannelDay.class, ChannelHour.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateBucketsIT.class);
        emf = Units.boot(db, "buckets", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    @Test
    void theDefinitionsKeyTheBucketTablesByParentAndStart() {
        assertThat(EntityModel.counters(MODEL, Map.of())).extracting(CounterDefinition::declaredBy,
                        d -> d.target().toString(), CounterDefinition::targetKey, CounterDefinition::bucket)
                .containsExactly(
                        tuple("ChannelDay.bytes", "public.channelday", "countercache_key",
                                new CounterDefinition.Bucket("sentat", "1 day", "Europe/Paris", "channel_id", "day")),
                        tuple("ChannelDay.messages", "public.channelday", "countercache_key",
                                new CounterDefinition.Bucket("sentat", "1 day", "Europe/Paris", "channel_id", "day")),
                        tuple("ChannelHour.largeMessages", "public.channelhour", "countercache_key",
                                new CounterDefinition.Bucket("sentat", "1 hour", "UTC", "channel_id", "hour")));
    }

    /** Exact reads by the bucket entity's identifier, before the rollup has made the rows and after. */
    @Test
    void exactReadsTakeTheBucketEntitysIdentifier() {
        Instant noon = Instant.parse("2026-11-20T11:00:00Z");
        emf.runInTransaction(em -> {
            Channel channel = new Channel();
            channel.id = 2L;
            em.persist(channel);
            for (long i = 1; i <= 3; i++) {
                Message m = new Message();
                m.id = 100 + i;
                m.channel = channel;
                m.sentAt = noon.plusSeconds(i * 60);
                m.size = 200;
                em.persist(m);
            }
        });
        ChannelDay.Key day = new ChannelDay.Key(2L, LocalDate.parse("2026-11-20"));
        ChannelDay.Key none = new ChannelDay.Key(2L, LocalDate.parse("2026-11-21"));
        ChannelHour.Key hour = new ChannelHour.Key(2L, Instant.parse("2026-11-20T11:00:00Z"));
        for (int round = 0; round < 2; round++) {   // pending, then rolled up
            Map<ChannelDay.Key, Long> messages = emf.callInTransaction(em -> CounterCaches.exact(em, ChannelDay.class,
                    "messages", List.of(day, none)));
            long bytes = emf.callInTransaction(em -> CounterCaches.exact(em, ChannelDay.class, "bytes", day));
            long large = emf.callInTransaction(em -> CounterCaches.exact(em, ChannelHour.class, "largeMessages", hour));
            assertThat(messages).as("round " + round).containsExactly(Map.entry(day, 3L), Map.entry(none, 0L));
            assertThat(bytes).isEqualTo(600);
            assertThat(large).isEqualTo(3);
            while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
                // until the queue is empty
            }
        }
    }

    @Test
    void writesOfEveryKindFillTheBucketsTheRollupCreates() {
        Instant evening = Instant.parse("2026-11-25T22:30:00Z");   // 23:30 in Paris
        emf.runInTransaction(em -> {
            Channel channel = new Channel();
            channel.id = 1L;
            em.persist(channel);
            for (long i = 1; i <= 4; i++) {
                Message m = new Message();
                m.id = i;
                m.channel = channel;
                m.sentAt = evening.plusSeconds((i - 1) * 1800);  // 23:30, 00:00, 00:30, 01:00 in Paris
                m.size = (int) i * 60;
                em.persist(m);
            }
        });
        emf.runInTransaction(em -> em.createQuery("UPDATE Message m SET m.size = m.size + 1 WHERE m.id = 1").executeUpdate());
        db.execute("DELETE FROM message WHERE id = 4");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        List<ChannelDay> days = emf.callInTransaction(em -> em.createQuery(
                "SELECT d FROM ChannelDay d WHERE d.channel.id = 1 ORDER BY d.day", ChannelDay.class).getResultList());
        assertThat(days).extracting(d -> d.day, d -> d.messages, d -> d.bytes).containsExactly(
                tuple(LocalDate.parse("2026-11-25"), 1L, 61L), tuple(LocalDate.parse("2026-11-26"), 2L, 300L));
        assertThat(db.queryRows("SELECT hour, largemessages FROM channelhour WHERE channel_id = 1 ORDER BY hour")).containsExactly(
                List.of("2026-11-25 23:00:00+00", "2"));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }
}
