package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.ManyToOne;

@Entity
public class Ticket extends Task {
    @ManyToOne
    Desk queue;
}
