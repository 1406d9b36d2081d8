package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinColumns;
import jakarta.persistence.ManyToOne;

/** A contribution by a team's member: a many-to-one that joins on both columns of {@link Membership}'s key. */
@Entity
public class Contribution {
    @Id
    Long id;

    // declared in another order than the key's columns (Hibernate orders an @IdClass's alphabetically: number, team)
    @ManyToOne
    @JoinColumns({@JoinColumn(name = "member_team", referencedColumnName = "team"),
            @JoinColumn(name = "member_number", referencedColumnName = "number")})
    Membership member;

    int lines;
}
