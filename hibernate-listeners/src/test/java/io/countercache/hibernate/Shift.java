package io.countercache.hibernate;

import jakarta.persistence.Entity;

/** A second concrete class of the TABLE_PER_CLASS hierarchy of Duty, in a table of its own. */
@Entity
public class Shift extends Duty {
}
