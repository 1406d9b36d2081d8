package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;

import java.util.HashSet;
import java.util.Set;

/** Counts the squeaky ones among its toys: a where on the elements of a collection through a join table. */
@Entity
public class Kid {
    @Id
    Long id;

    // the index a where on Toy's columns needs: the rollup updates a toy's links by it
    @ManyToMany
    @JoinTable(indexes = @Index(columnList = "toys_id"))
    Set<Toy> toys = new HashSet<>();

    /** Kept per link by the rollup, as Club.vipMembers is. */
    @CounterCache(collection = "toys", where = "squeaky")
    long squeakyToys;
}
