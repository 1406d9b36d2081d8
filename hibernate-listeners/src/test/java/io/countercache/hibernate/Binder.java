package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToMany;

import java.util.HashSet;
import java.util.Set;

/** Links to entries Hibernate soft-deletes, whose links stay when they go: not countable by the links. */
@Entity
public class Binder {
    @Id
    Long id;

    @ManyToMany
    Set<Entry> entries = new HashSet<>();

    @CounterCache(collection = "entries")
    long entryCount;
}
