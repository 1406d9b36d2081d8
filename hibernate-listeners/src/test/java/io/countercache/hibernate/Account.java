package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** A middle entity of {@link Region}'s path: it moves between regions. */
@Entity
public class Account {
    @Id
    Long id;

    @ManyToOne
    Region region;
}
