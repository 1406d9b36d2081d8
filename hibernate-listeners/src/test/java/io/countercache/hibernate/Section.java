package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.SoftDelete;

/** The soft-deleted middle of a path: its {@link Line}s count for its journal while it is not deleted. */
@Entity
@SoftDelete
public class Section {
    @Id
    Long id;

    @ManyToOne
    Journal journal;
}
