package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** Counted for its section's journal, along the path {@code section.journal}. */
@Entity
public class Line {
    @Id
    Long id;

    @ManyToOne
    Section section;
}
