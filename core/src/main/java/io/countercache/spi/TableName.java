package io.countercache.spi;

import static io.countercache.internal.Sql.ident;

/** A physical, schema-qualified table name, exactly as PostgreSQL stores it (case included). */
public record TableName(String schema, String table) implements Comparable<TableName> {

    public TableName {
        if (schema == null || schema.isEmpty() || table == null || table.isEmpty()) {
            throw new IllegalArgumentException("schema and table must be non-empty, got " + schema + "." + table);
        }
    }

    /** The quoted, qualified name for SQL text. */
    public String sql() {
        return ident(schema) + "." + ident(table);
    }

    @Override
    public int compareTo(TableName o) {
        int c = schema.compareTo(o.schema);
        return c != 0 ? c : table.compareTo(o.table);
    }

    @Override
    public String toString() {
        return schema + "." + table;
    }
}
