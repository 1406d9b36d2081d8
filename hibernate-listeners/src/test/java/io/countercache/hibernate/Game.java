package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** A game between two players, counted for each of them by {@link Player}. */
@Entity
public class Game {
    @Id
    Long id;

    @ManyToOne
    Player challenger;

    @ManyToOne
    Player opponent;

    int score;
}
