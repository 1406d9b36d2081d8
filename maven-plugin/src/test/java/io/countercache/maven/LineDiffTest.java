package io.countercache.maven;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

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

    @Test
    void springYamlBecomesDottedKeys() {
        assertThat(PersistenceSettings.yaml(List.of("spring:", "  jpa:", "    hibernate:", "      naming:",
                "        physical-strategy: com.acme.Naming  # ours", "    properties:",
                "      hibernate.default_schema: \"shop\"", "server:", "  port: 8080")))
                .singleElement().isEqualTo(Map.of("spring.jpa.hibernate.naming.physical-strategy", "com.acme.Naming",
                        "spring.jpa.properties.hibernate.default_schema", "shop", "server.port", "8080"));
    }
}
