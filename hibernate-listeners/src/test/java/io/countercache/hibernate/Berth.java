package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;

import java.io.Serializable;
import java.util.UUID;

/** A berth keyed by a harbour and a UUID: two columns too wide to pack into one key, which the library hashes. */
@Entity
@IdClass(Berth.Key.class)
public class Berth {

    /** The identifier: the harbour and the berth's UUID. */
    public record Key(Long harbour, UUID slot) implements Serializable {
    }

    @Id
    Long harbour;

    @Id
    UUID slot;

    @CounterCache(source = Boat.class, via = "berth")
    long boats;

    /** A boat moored at a berth. */
    @Entity(name = "Boat")
    @jakarta.persistence.Table(name = "boat")
    public static class Boat {
        @Id
        Long id;

        @jakarta.persistence.ManyToOne
        Berth berth;
    }
}
