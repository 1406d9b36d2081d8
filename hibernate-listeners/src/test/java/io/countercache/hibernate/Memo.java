package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.SQLRestriction;

/** Hidden from every query of Hibernate's once archived. */
@Entity
@SQLRestriction("archived = false")
public class Memo {
    @Id
    Long id;

    @ManyToOne
    Journal journal;

    boolean archived;
}
