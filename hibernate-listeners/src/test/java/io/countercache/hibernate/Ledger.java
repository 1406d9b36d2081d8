package io.countercache.hibernate;

import jakarta.persistence.Embedded;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A counter declared inside an embeddable: refused, since nothing would count into it. */
@Entity
public class Ledger {
    @Id
    Long id;

    @Embedded
    Totals totals;
}
