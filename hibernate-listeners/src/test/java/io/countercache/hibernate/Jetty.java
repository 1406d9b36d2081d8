package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;

import java.io.Serializable;
import java.time.LocalDate;

/** A jetty keyed by a harbour and the day it opened, and no bucket: a key of two columns the library cannot keep. */
@Entity
@IdClass(Jetty.Key.class)
public class Jetty {

    /** The identifier: the harbour and the day the jetty opened. */
    public record Key(Long harbour, LocalDate opened) implements Serializable {
    }

    @Id
    Long harbour;

    @Id
    LocalDate opened;

    @CounterCache(source = Dinghy.class, via = "jetty")
    long dinghies;

    /** A dinghy tied to a jetty. */
    @Entity
    public static class Dinghy {
        @Id
        Long id;

        @jakarta.persistence.ManyToOne
        Jetty jetty;
    }
}
