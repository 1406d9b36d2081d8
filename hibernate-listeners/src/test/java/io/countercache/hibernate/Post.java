package io.countercache.hibernate;

import io.countercache.CounterCache;
import io.countercache.Strategy;
import jakarta.persistence.Cacheable;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Cacheable
@Table(name = "\"Posts\"")
public class Post {
    @Id
    @GeneratedValue
    Long id;

    String title;

    @CounterCache(source = Remark.class, via = "post")
    long remarkCount;

    @Column(name = "visible_remarks")
    @CounterCache(source = Remark.class, via = "post", where = "status = 'visible'", touch = "remarkedAt")
    int visibleRemarks;

    /** Stamped whenever the visible remarks change. */
    java.time.Instant remarkedAt;

    @CounterCache(source = Remark.class, via = "post", sum = "score", strategy = Strategy.SLOTTED, slots = 8)
    long totalScore;
}
