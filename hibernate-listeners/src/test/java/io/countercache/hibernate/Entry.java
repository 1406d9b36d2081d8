package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.SoftDelete;

/** Soft-deleted by Hibernate: removing one sets its column {@code deleted} to true. */
@Entity
@SoftDelete
public class Entry {
    @Id
    Long id;

    @ManyToOne
    Journal journal;
}
