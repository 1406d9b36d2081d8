package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.SoftDelete;
import org.hibernate.annotations.SoftDeleteType;
import org.hibernate.type.YesNoConverter;

/** Soft-deleted by Hibernate the other way round: a live one has {@code active = 'Y'}, a removed one 'N'. */
@Entity
@SoftDelete(strategy = SoftDeleteType.ACTIVE, converter = YesNoConverter.class)
public class Draft {
    @Id
    Long id;

    @ManyToOne
    Journal journal;
}
