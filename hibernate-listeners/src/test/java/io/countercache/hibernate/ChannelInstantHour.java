package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.ManyToOne;

import java.io.Serializable;
import java.time.Instant;

/** A channel's messages per hour in Paris, its start an {@code Instant} in a {@code timestamp} column. */
@Entity
@IdClass(ChannelInstantHour.Key.class)
public class ChannelInstantHour {

    /** The identifier: the channel's key and the hour's start. */
    public record Key(Long channel, Instant hour) implements Serializable {
    }

    @Id
    @ManyToOne
    Channel channel;

    @Id
    @Column(columnDefinition = "timestamp(6)")
    Instant hour;

    @CounterCache(source = Message.class, via = "channel", bucket = "sentAt", period = "1 hour", zone = "Europe/Paris")
    long messages;
}
