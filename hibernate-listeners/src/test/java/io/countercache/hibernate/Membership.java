package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;

import java.io.Serializable;

/**
 * A member of a team, keyed by two columns with an {@code @IdClass} (the team, then the member's number in it), as a
 * multi-tenant schema keys its rows; counts and sums the commits that point at it.
 */
@Entity
@IdClass(Membership.Key.class)
public class Membership {

    /** The identifier: the team and the member's number in it. */
    public record Key(Long team, Integer number) implements Serializable {
    }

    @Id
    Long team;

    @Id
    Integer number;

    @CounterCache(source = Contribution.class, via = "member")
    long contributions;

    @CounterCache(source = Contribution.class, via = "member", sum = "lines", where = "lines > 0")
    long linesAdded;
}
