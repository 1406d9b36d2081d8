package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Embeddable;

@Embeddable
public class Totals {
    @CounterCache(source = Entry.class, via = "journal")
    long entries;
}
