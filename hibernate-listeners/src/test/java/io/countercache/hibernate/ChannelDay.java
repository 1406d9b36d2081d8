package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.ManyToOne;

import java.io.Serializable;
import java.time.LocalDate;

/** A channel's messages and bytes per day in Paris: a bucket entity with an {@code @IdClass}. */
@Entity
@IdClass(ChannelDay.Key.class)
public class ChannelDay {

    /** The identifier: the channel's key and the day. */
    public record Key(Long channel, LocalDate day) implements Serializable {
    }

    @Id
    @ManyToOne
    Channel channel;

    @Id
    LocalDate day;

    @CounterCache(source = Message.class, via = "channel", bucket = "sentAt", period = "1 day", zone = "Europe/Paris")
    long messages;

    @CounterCache(source = Message.class, via = "channel", bucket = "sentAt", period = "1 day", zone = "Europe/Paris",
            sum = "size")
    long bytes;
}
