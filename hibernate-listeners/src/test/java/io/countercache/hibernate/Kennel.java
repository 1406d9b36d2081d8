package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToMany;

import java.util.HashSet;
import java.util.Set;

/** Collection counters that cannot work, each for its own reason. */
@Entity
public class Kennel {
    @Id
    Long id;

    @ManyToMany
    Set<Pet> residents = new HashSet<>();

    @CounterCache(collection = "dogs")
    long dogs;

    @CounterCache(collection = "residents", sum = "id")
    long residentIds;

    @CounterCache(source = Pet.class, via = "kennel", collection = "residents")
    long both;

    @CounterCache(where = "kind = 'cat'")
    long nothing;

    /** Pet has no many-to-one to Kennel: the relation is this side's collection. */
    @CounterCache(source = Pet.class, via = "kennel")
    long pointingBack;

    String label;

    @CounterCache(collection = "residents", touch = "label")
    long touchesText;

    @CounterCache(collection = "residents", touch = "touchedAt")
    long touchesNothing;
}
