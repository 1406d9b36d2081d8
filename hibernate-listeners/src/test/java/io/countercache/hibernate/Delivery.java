package io.countercache.hibernate;

import jakarta.persistence.Entity;

@Entity
public class Delivery extends Errand {
}
