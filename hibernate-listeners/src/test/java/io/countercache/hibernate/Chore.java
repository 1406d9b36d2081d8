package io.countercache.hibernate;

import jakarta.persistence.Entity;

@Entity
public class Chore extends Duty {
}
