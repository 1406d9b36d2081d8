package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity without counters: a persistence unit of these alone leaves countercache idle. */
@Entity
public class Plain {
    @Id
    Long id;
}
