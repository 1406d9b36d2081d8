package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Counts the games it plays on either side: one counter fed by two associations of {@link Game}. */
@Entity
public class Player {
    @Id
    Long id;

    @CounterCache(source = Game.class, via = {"challenger", "opponent"})
    long games;

    @CounterCache(source = Game.class, via = {"challenger", "opponent"}, sum = "score", where = "score > 0")
    long points;
}
