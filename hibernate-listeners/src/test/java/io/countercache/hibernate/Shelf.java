package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

import java.util.UUID;

@Entity
public class Shelf {
    @Id
    UUID id;

    @CounterCache(source = Book.class, via = "shelff")
    long books;
}
