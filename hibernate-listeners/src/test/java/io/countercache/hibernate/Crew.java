package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;

import java.util.HashSet;
import java.util.Set;

/** A where on each side of one join table: the library keeps one, and refuses the second with the fix. */
@Entity
public class Crew {
    @Id
    Long id;

    boolean paid;

    @ManyToMany
    @JoinTable(name = "crew_ships")
    Set<Ship> ships = new HashSet<>();

    @CounterCache(collection = "ships", where = "big")
    long bigShips;

    /** A ship, with crews. */
    @Entity
    public static class Ship {
        @Id
        Long id;

        boolean big;

        @CounterCache(source = Crew.class, via = "ships", where = "paid")
        long paidCrews;
    }
}
