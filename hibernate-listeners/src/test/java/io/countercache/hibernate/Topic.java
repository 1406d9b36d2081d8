package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** The middle of the path Reply -> Topic -> Forum: moving a topic moves its replies' counts. */
@Entity
public class Topic {
    @Id
    @GeneratedValue
    Long id;

    @ManyToOne
    Forum forum;

    String title;
}
