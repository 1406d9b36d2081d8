package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

@Entity
public class Book {
    @Id
    Long id;

    @ManyToOne
    Shelf shelf;

    @ManyToOne
    Shelf formerShelf;
}
