package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The far side of Owner.clubs, a many-to-many it does not map: it counts its members from the owning side. */
@Entity
public class Club {
    @Id
    Long id;

    @CounterCache(source = Owner.class, via = "clubs")
    long members;
}
