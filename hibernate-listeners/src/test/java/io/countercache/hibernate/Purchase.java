package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** A middle entity of {@link Region}'s path: it moves between accounts. */
@Entity
public class Purchase {
    @Id
    Long id;

    @ManyToOne
    Account account;
}
