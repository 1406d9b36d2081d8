package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/**
 * A hierarchy in one table: a count of its own rows, and paths that pass through it twice and three times, so that the
 * levels of one path live side by side on the same rows.
 */
@Entity
public class Employee {
    @Id
    Long id;

    @ManyToOne
    Employee manager;

    /** The employees whose manager this is: a count of the table's own rows. */
    @CounterCache(source = Employee.class, via = "manager")
    long directReports;

    /** The employees whose manager's manager this is. */
    @CounterCache(source = Employee.class, via = "manager.manager")
    long skipLevelReports;

    /** The employees three levels beneath this one. */
    @CounterCache(source = Employee.class, via = "manager.manager.manager")
    long thirdLevelReports;
}
