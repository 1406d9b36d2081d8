package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Club {
    @Id
    Long id;
}
