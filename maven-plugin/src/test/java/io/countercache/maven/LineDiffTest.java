package io.countercache.maven;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LineDiffTest {

    @Test
    void showsEachChangeWithItsContext() {
        String before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        String after = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
        assertThat(LineDiff.unified("x.sql", before, after, 1)).isEqualTo("""
                --- x.sql (committed)
                +++ x.sql (generated)
                @@
                 a
                -b
                +B
                 c
                @@
                 j
                +k
                \s
                """);
    }
}
