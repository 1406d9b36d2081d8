package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Counters fed by both sides of a {@link Fixture} that cannot work, each refused with its fix. */
@Entity
public class Team {
    @Id
    Long id;

    @CounterCache(source = Fixture.class, via = {"home", "home"})
    long twice;

    @CounterCache(source = Fixture.class, via = {"home", "away"}, max = "goals")
    Long mostGoals;

    @CounterCache(source = Fixture.class, via = {"home", "away"}, bucket = "playedAt", period = "1 day")
    long perDay;

    @CounterCache(source = Fixture.class, via = {"home", "referee"})
    long refereed;
}
