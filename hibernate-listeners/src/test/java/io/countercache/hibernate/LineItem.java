package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** Counted for the region of its purchase's account. */
@Entity
public class LineItem {
    @Id
    Long id;

    @ManyToOne
    Purchase purchase;

    int quantity;
}
