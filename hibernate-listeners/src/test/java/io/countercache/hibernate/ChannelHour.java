package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.MapsId;

import java.io.Serializable;
import java.time.Instant;

/** A channel's large messages per hour: a bucket entity with an {@code @EmbeddedId} and {@code @MapsId}. */
@Entity
public class ChannelHour {

    /** The identifier: the channel's key and the hour's start. */
    @Embeddable
    public record Key(Long channelId, Instant hour) implements Serializable {
    }

    @EmbeddedId
    Key id;

    @MapsId("channelId")
    @ManyToOne
    Channel channel;

    @CounterCache(source = Message.class, via = "channel", bucket = "sentAt", period = "1 hour", where = "size > 100")
    long largeMessages;
}
