package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Counters of hierarchies that cannot work, each for its own reason. */
@Entity
public class Office {
    @Id
    Long id;

    @CounterCache(source = Errand.class, via = "office")
    long errands;

    @CounterCache(source = Inspection.class, via = "office")
    long inspections;
}
