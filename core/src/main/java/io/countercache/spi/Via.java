package io.countercache.spi;

import java.util.Objects;

/**
 * The middle table of a counter along a path ({@code Comment -> Article -> Blog}): the source's foreign key points at
 * this table's key, and this table's {@code fk} points at the target's key. A source row counts for the target its
 * middle row points at, so moving a middle row to another target moves the counts of every source row under it.
 *
 * @param table   the middle table
 * @param key     its primary key column, which the source's foreign key references (with a foreign key constraint)
 * @param keyType the type of that key
 * @param fk      its column that points at the target key
 */
public record Via(TableName table, String key, KeyType keyType, String fk) {

    public Via {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(fk, "fk");
    }
}
