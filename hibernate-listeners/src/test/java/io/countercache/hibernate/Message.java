package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

import java.time.Instant;

/** Counted per channel and per period, by the time it was sent. */
@Entity
public class Message {
    @Id
    Long id;

    @ManyToOne
    Channel channel;

    Instant sentAt;

    int size;
}
