package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToMany;

import java.util.HashSet;
import java.util.Set;

/** The far side of Owner.clubs: it counts its members from the owning side, and again through its inverse side. */
@Entity
public class Club {
    @Id
    Long id;

    @ManyToMany(mappedBy = "clubs")
    Set<Owner> owners = new HashSet<>();

    @CounterCache(source = Owner.class, via = "clubs")
    long members;

    @CounterCache(collection = "owners")
    long ownerCount;

    /** A where on the far entity, Owner: kept per link in the join table, then summed here. */
    @CounterCache(source = Owner.class, via = "clubs", where = "vip")
    long vipMembers;
}
