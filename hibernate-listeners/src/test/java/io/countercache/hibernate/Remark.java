package io.countercache.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;

@Entity
public class Remark {
    @Id
    @GeneratedValue
    Long id;

    @ManyToOne
    @JoinColumn(name = "post_ref")
    Post post;

    @ManyToOne
    Post quotedPost;

    String status;

    int score;

    Double weight;

    String body;

    @jakarta.persistence.Column(precision = 12, scale = 2)
    java.math.BigDecimal price;
}
