package io.countercache.internal;

/** Quoting for generated SQL text. Values never go into SQL text at run time; these serve generated scripts. */
public final class Sql {

    private Sql() {
    }

    /**
     * A quoted identifier: {@code "name"}, inner quotes doubled; a name with a line break or another control character
     * is written with Unicode escapes ({@code U&"a\000Ab"}), so that generated text keeps one line per line: a
     * changelog's lines are read before SQL is (a line that starts {@code -- changeset} inside a name is one).
     */
    public static String ident(String name) {
        if (name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("identifier contains a NUL character: " + name);
        }
        if (!hasControl(name)) {
            return '"' + name.replace("\"", "\"\"") + '"';
        }
        return "U&\"" + escaped(name.replace("\"", "\"\""), "\\%04X") + '"';
    }

    private static boolean hasControl(String s) {
        return s.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f);
    }

    /** Backslashes doubled and control characters written with this format (a backslash escape). */
    private static String escaped(String s, String format) {
        StringBuilder out = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if (ch == '\\') {
                out.append("\\\\");
            } else if (ch < 0x20 || ch == 0x7f) {
                out.append(String.format(java.util.Locale.ROOT, format, (int) ch));
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }

    /** A string literal ({@code 'text'}, inner quotes doubled) or {@code NULL}. */
    public static String literal(String value) {
        if (value == null) {
            return "NULL";
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("literal contains a NUL character: " + value);
        }
        if (!hasControl(value)) {
            return "'" + value.replace("'", "''") + "'";
        }
        return "E'" + escaped(value.replace("'", "''"), "\\u%04X") + "'";   // one line, as ident
    }
}
