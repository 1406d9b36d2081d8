package io.countercache.spi;

/** The PostgreSQL type of a target key, and so of the foreign key that points at it. */
public enum KeyType {
    INTEGER("integer"),
    BIGINT("bigint"),
    UUID("uuid");

    private final String sqlName;

    KeyType(String sqlName) {
        this.sqlName = sqlName;
    }

    /** The type as PostgreSQL names it ({@code format_type}). */
    public String sqlName() {
        return sqlName;
    }

    /** The queue column that holds keys of this type. */
    public String queueColumn() {
        return this == UUID ? "target_uuid" : "target_id";
    }
}
