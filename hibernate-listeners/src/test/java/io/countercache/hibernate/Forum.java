package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Counters along a path: a reply counts for the forum of its topic (Reply -> Topic -> Forum). */
@Entity
public class Forum {
    @Id
    @GeneratedValue
    Long id;

    String name;

    @CounterCache(source = Reply.class, via = "topic.forum")
    long replies;

    /** Money, to the cent: the sum of a numeric(10,2) column into a numeric(14,2) one. */
    @Column(precision = 14, scale = 2)
    @CounterCache(source = Reply.class, via = "topic.forum", sum = "tip")
    BigDecimal tips;

    /** The README's average, from a sum and a count side by side: null before the first reply. */
    BigDecimal averageTip() {
        return replies == 0 ? null : tips.divide(BigDecimal.valueOf(replies), 2, RoundingMode.HALF_EVEN);
    }
}
