package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;

import java.io.Serializable;

/** An edition of a title in one language, keyed by an {@code @EmbeddedId} of two columns; counts its sales. */
@Entity
public class Edition {

    /** The identifier: the title's number and the language's. */
    @Embeddable
    public record Key(long title, int language) implements Serializable {
    }

    @EmbeddedId
    Key id;

    @CounterCache(source = Sale.class, via = "edition")
    long sales;
}
