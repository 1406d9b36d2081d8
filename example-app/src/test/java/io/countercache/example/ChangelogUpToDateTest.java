package io.countercache.example;

import io.countercache.hibernate.spi.EntityModel;
import io.countercache.liquibase.ChangelogWriter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committed changelog is what the entity model generates. After changing a @CounterCache, regenerate it with
 * {@value #REGENERATE} and review the diff.
 */
class ChangelogUpToDateTest {

    static final String REGENERATE = "mvn -pl example-app -am test -Dtest=ChangelogUpToDateTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dcountercache.regenerate=true";
    private static final Path CHANGELOG = Path.of("src/main/resources/db/changelog/countercache.changelog.sql");

    @Test
    void theCommittedChangelogMatchesTheEntities() throws Exception {
        List<Class<?>> entities = List.of(User.class, Blog.class, Article.class, Comment.class);
        String generated = ChangelogWriter.render(EntityModel.changelogName(entities), EntityModel.counters(entities, Map.of()),
                EntityModel.limits(entities), REGENERATE);
        if (Boolean.getBoolean("countercache.regenerate")) {
            Files.writeString(CHANGELOG, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(CHANGELOG)).as(CHANGELOG + " exists; create it with: " + REGENERATE).isTrue();
        assertThat(Files.readString(CHANGELOG, StandardCharsets.UTF_8))
                .as(CHANGELOG + " is out of date; regenerate it with: " + REGENERATE).isEqualTo(generated);
    }
}
