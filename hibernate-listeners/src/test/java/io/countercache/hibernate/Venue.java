package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Inheritance;
import jakarta.persistence.InheritanceType;

/** A TABLE_PER_CLASS target with a subclass: a hall's row is in its own table, which the counter column is not. */
@Entity
@Inheritance(strategy = InheritanceType.TABLE_PER_CLASS)
public class Venue {
    @Id
    Long id;

    @CounterCache(source = Booking.class, via = "venue")
    long bookings;
}
