package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Pet {
    @Id
    Long id;

    String kind;
}
