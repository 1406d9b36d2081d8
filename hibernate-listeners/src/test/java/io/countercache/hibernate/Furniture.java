package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.MappedSuperclass;

/** A mapped superclass that declares a counter for the entities that extend it. */
@MappedSuperclass
public abstract class Furniture {
    /** A subclass two levels down a SINGLE_TABLE hierarchy: its discriminator value only. */
    @CounterCache(source = Urgent.class, via = "desk")
    long urgent;
}
