package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** A sale of an {@link Edition}, by Hibernate's default join columns for its two-column key. */
@Entity
public class Sale {
    @Id
    Long id;

    @ManyToOne
    Edition edition;
}
