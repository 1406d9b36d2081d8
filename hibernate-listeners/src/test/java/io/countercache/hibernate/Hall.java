package io.countercache.hibernate;

import jakarta.persistence.Entity;

@Entity
public class Hall extends Venue {
    int seats;
}
