package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.OneToMany;

import java.util.HashSet;
import java.util.Set;

/**
 * A model mapped on the parent, as Spring PetClinic maps it: nothing points back from Pet; Club has the inverse side
 * of clubs (mappedBy), which names the join table's column owners_id.
 */
@Entity
public class Owner {
    @Id
    Long id;

    @OneToMany
    @JoinColumn(name = "owner_id")
    Set<Pet> pets = new HashSet<>();

    // the index a where on Owner's columns needs (Club.vipMembers): the rollup updates an owner's links by it
    @ManyToMany
    @JoinTable(name = "owner_club", indexes = @Index(columnList = "owners_id"))
    Set<Club> clubs = new HashSet<>();

    boolean vip;

    @CounterCache(collection = "pets")
    long petCount;

    @CounterCache(collection = "pets", where = "kind = 'cat'")
    long cats;

    @CounterCache(collection = "clubs")
    long clubCount;

}
