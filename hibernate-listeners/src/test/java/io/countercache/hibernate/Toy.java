package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A toy, of many kids ({@link Kid#toys}). */
@Entity
public class Toy {
    @Id
    Long id;

    boolean squeaky;
}
