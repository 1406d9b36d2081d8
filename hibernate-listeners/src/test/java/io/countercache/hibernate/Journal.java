package io.countercache.hibernate;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Counts of entries Hibernate hides when they go: soft-deleted ones ({@link Entry}, {@link Draft}), restricted ones ({@link Memo}),
 * and lines of soft-deleted sections along a path ({@link Line}). */
@Entity
public class Journal {
    @Id
    Long id;

    @CounterCache(source = Entry.class, via = "journal")
    long entries;

    @CounterCache(source = Draft.class, via = "journal")
    long drafts;

    @CounterCache(source = Memo.class, via = "journal")
    long memos;

    @CounterCache(source = Line.class, via = "section.journal")
    long lines;
}
