package io.countercache.hibernate;

import io.countercache.CounterLimit;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A customer who may make at most three calls an hour. */
@Entity
@CounterLimit(name = "calls_per_hour", period = "1 hour", limit = 3)
public class Customer {
    @Id
    Long id;
}
