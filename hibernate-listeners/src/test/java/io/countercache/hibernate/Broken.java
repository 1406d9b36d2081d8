package io.countercache.hibernate;

import io.countercache.CounterCache;
import io.countercache.CounterLimit;
import io.countercache.Strategy;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Declarations that must be refused, each with a message naming the field and the fix. */
@Entity
@CounterLimit(name = "fortnightly", period = "1 fortnight", limit = 3)
public class Broken {
    @Id
    Long id;

    @CounterCache(source = Remark.class, via = "article")
    long badVia;

    @CounterCache(source = Remark.class, via = "post")
    String notANumber;

    @CounterCache(source = String.class, via = "post")
    long notAnEntity;

    @CounterCache(source = Remark.class, via = "post", strategy = Strategy.SLOTTED, slots = 1)
    long tooFewSlots;

    @CounterCache(source = Remark.class, via = "post", bucket = "status")
    long bucketWithoutPeriod;

    @CounterCache(source = Remark.class, via = "post", slots = 32)
    long slotsWithoutSlotted;

    @CounterCache(source = Remark.class, via = "post", zone = "Europe/Paris", retention = 7)
    long zoneWithoutBucket;

    @CounterCache(source = Remark.class, via = "post", retention = 7)
    long retentionWithoutBucket;

    @CounterCache(source = Remark.class, via = "post", bucket = "status", period = "1 fortnight")
    long fortnightlyBucket;

    @CounterCache(source = Remark.class, via = "post", bucket = "status", period = "1 day", strategy = Strategy.DIRECT)
    long directBucket;

    @CounterCache(source = Remark.class, via = "post", bucket = "status", period = "1 day")
    long bucketOfASingleKey;

    @CounterCache(source = Remark.class, via = "quotedPost.post", bucket = "status", period = "1 day")
    long bucketAlongAPath;

    @CounterCache(source = Remark.class, via = "post.nothing")
    long badPath;

    @CounterCache(source = Remark.class, via = "post")
    java.math.BigDecimal decimalWithoutSum;

    @CounterCache(source = Remark.class, via = "post.quotedPost.post", distinct = "status")
    long threeSteps;

    @CounterCache(source = Remark.class, via = "post", sum = "weight")
    long floatingSum;

    @CounterCache(source = Remark.class, via = "post", sum = "body")
    long textSum;

    @CounterCache(source = Remark.class, via = "post", sum = "price")
    long centsIntoWholeNumbers;

    @CounterCache(source = Remark.class, via = "post", max = "score")
    long primitiveMax;

    @CounterCache(source = Remark.class, via = "post", max = "body")
    String textMax;

    @CounterCache(source = Remark.class, via = "post", max = "score", strategy = Strategy.DIRECT)
    Integer directMax;

    @CounterCache(source = Remark.class, via = "post", min = "score")
    Long mismatchedMin;

    @CounterCache(source = Remark.class, via = "post", sum = "score", max = "score")
    Integer sumAndMax;

    @CounterCache(source = Remark.class, via = "quotedPost.post", max = "score")
    Integer pathMax;

    @CounterCache(source = Remark.class, via = "post", distinct = "weight")
    long distinctWeights;

    @CounterCache(source = Remark.class, via = "post", distinct = "quotedPost", strategy = Strategy.UNLOGGED)
    long unloggedDistinct;

    @CounterCache(source = Remark.class, via = "post", sum = "score", distinct = "status")
    long sumAndDistinct;
}
