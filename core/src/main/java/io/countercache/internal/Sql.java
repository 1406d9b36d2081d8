package io.countercache.internal;

/** Quoting for generated SQL text. Values never go into SQL text at run time; these serve generated scripts. */
public final class Sql {

    private Sql() {
    }

    /** A quoted identifier: {@code "name"}, inner quotes doubled. */
    public static String ident(String name) {
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("identifier contains a NUL character: " + name);
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A string literal ({@code 'text'}, inner quotes doubled) or {@code NULL}. */
    public static String literal(String value) {
        if (value == null) {
            return "NULL";
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("literal contains a NUL character: " + value);
        }
        return "'" + value.replace("'", "''") + "'";
    }
}
