package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;

import java.util.HashSet;
import java.util.Set;

/** Counters of hierarchies that cannot work, each for its own reason. */
@Entity
public class Office {
    @Id
    Long id;

    /** A concrete TABLE_PER_CLASS class with a subclass: errand's rows and delivery's. */
    @CounterCache(source = Errand.class, via = "office")
    long errands;

    @CounterCache(source = Errand.class, via = "office", max = "id")
    Long lastErrand;

    @CounterCache(source = Inspection.class, via = "office")
    long inspections;

    /** Mapped by Visit's office: its column is in Visit's table, not Inspection's. */
    @OneToMany(mappedBy = "office")
    Set<Inspection> listedInspections = new HashSet<>();

    @CounterCache(collection = "listedInspections")
    long inspectionsListed;
}
