package io.countercache.hibernate;

import jakarta.persistence.DiscriminatorValue;
import jakarta.persistence.Entity;

@Entity
@DiscriminatorValue("it's urgent")   // a quote in the value, which the condition must escape
public class Urgent extends Praise {
}
