package io.countercache.maven;

import java.util.ArrayList;
import java.util.List;

/** A unified diff of two texts, line by line (longest common subsequence), for the check goal's failure. */
final class LineDiff {

    private LineDiff() {
    }

    static String unified(String name, String before, String after, int context) {
        String[] a = before.split("\n", -1), b = after.split("\n", -1);
        int[][] lcs = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--) {
            for (int j = b.length - 1; j >= 0; j--) {
                lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<String> ops = new ArrayList<>();   // " line", "-line", "+line"
        int i = 0, j = 0;
        while (i < a.length || j < b.length) {
            if (i < a.length && j < b.length && a[i].equals(b[j])) {
                ops.add(" " + a[i++]);
                j++;
            } else if (i < a.length && (j == b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
                ops.add("-" + a[i++]);
            } else {
                ops.add("+" + b[j++]);
            }
        }
        StringBuilder out = new StringBuilder("--- " + name + " (committed)\n+++ " + name + " (generated)\n");
        int from = -1, to = -1;   // the hunk being collected: changes closer than 2 * context share one
        for (int k = 0; k <= ops.size(); k++) {
            boolean change = k < ops.size() && ops.get(k).charAt(0) != ' ';
            if (change && from >= 0 && k - context <= to) {
                to = Math.min(ops.size(), k + context + 1);
            } else if (change || k == ops.size()) {
                if (from >= 0) {
                    out.append("@@\n");
                    ops.subList(from, to).forEach(line -> out.append(line).append('\n'));
                }
                from = change ? Math.max(0, k - context) : -1;
                to = change ? Math.min(ops.size(), k + context + 1) : -1;
            }
        }
        return out.toString();
    }
}
