package io.countercache.hibernate;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

import java.math.BigDecimal;

@Entity
public class Reply {
    @Id
    @GeneratedValue
    Long id;

    @ManyToOne
    Topic topic;

    @Column(precision = 10, scale = 2)
    BigDecimal tip;
}
