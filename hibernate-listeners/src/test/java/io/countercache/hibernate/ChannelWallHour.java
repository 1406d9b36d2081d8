package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.ManyToOne;

import java.io.Serializable;
import java.time.LocalDateTime;

/** A channel's messages per hour, its start a {@code LocalDateTime} in a {@code timestamptz} column. */
@Entity
@IdClass(ChannelWallHour.Key.class)
public class ChannelWallHour {

    /** The identifier: the channel's key and the hour's start. */
    public record Key(Long channel, LocalDateTime hour) implements Serializable {
    }

    @Id
    @ManyToOne
    Channel channel;

    @Id
    @Column(columnDefinition = "timestamp(6) with time zone")
    LocalDateTime hour;

    @CounterCache(source = Message.class, via = "channel", bucket = "sentAt", period = "1 hour")
    long messages;
}
