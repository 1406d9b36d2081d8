package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;

import java.io.Serializable;

/** A quay keyed by a harbour and a name: a text part, which the library hashes with the other into one key. */
@Entity
@IdClass(Quay.Key.class)
public class Quay {

    /** The identifier: the harbour and the quay's name. */
    public record Key(Long harbour, String name) implements Serializable {
    }

    @Id
    Long harbour;

    @Id
    String name;

    @CounterCache(source = Crane.class, via = "quay")
    long cranes;

    /** A crane on a quay. */
    @Entity(name = "Crane")
    @jakarta.persistence.Table(name = "crane")
    public static class Crane {
        @Id
        Long id;

        @jakarta.persistence.ManyToOne
        Quay quay;
    }
}
