package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Counters of entities in each kind of JPA hierarchy. */
@Entity
public class Desk extends Furniture {
    @Id
    Long id;

    /** The root of a SINGLE_TABLE hierarchy: every row of its table. */
    @CounterCache(source = Feedback.class, via = "desk")
    long feedback;

    /** A SINGLE_TABLE subclass: the rows of its discriminator value and its subclass's. */
    @CounterCache(source = Praise.class, via = "desk")
    long praise;

    @CounterCache(source = Praise.class, via = "desk", where = "open")
    long openPraise;

    /** The root of a JOINED hierarchy: its table holds every instance. */
    @CounterCache(source = Task.class, via = "desk")
    long tasks;

    /** A JOINED subclass, through an association of its own table. */
    @CounterCache(source = Ticket.class, via = "queue")
    long tickets;

    /** A TABLE_PER_CLASS class without subclasses: its own table. */
    @CounterCache(source = Chore.class, via = "desk")
    long chores;

    /** An abstract TABLE_PER_CLASS class: the tables of its concrete classes, chore and shift. */
    @CounterCache(source = Duty.class, via = "desk")
    long duties;

    @CounterCache(source = Duty.class, via = "desk", where = "urgent")
    long urgentDuties;
}
