package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

import java.time.Instant;

/** A match between two {@link Team}s. */
@Entity
public class Fixture {
    @Id
    Long id;

    @ManyToOne
    Team home;

    @ManyToOne
    Team away;

    Integer goals;

    Instant playedAt;
}
