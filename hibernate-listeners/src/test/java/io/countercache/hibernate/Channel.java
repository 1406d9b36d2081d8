package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The parent of {@link ChannelDay} and {@link ChannelHour} buckets. */
@Entity
public class Channel {
    @Id
    Long id;
}
