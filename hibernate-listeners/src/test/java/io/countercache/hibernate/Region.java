package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The top of a path of three steps: line item -> purchase -> account -> region. */
@Entity
public class Region {
    @Id
    Long id;

    @CounterCache(source = LineItem.class, via = "purchase.account.region")
    long lines;

    @CounterCache(source = LineItem.class, via = "purchase.account.region", sum = "quantity", where = "quantity > 0")
    long quantity;
}
