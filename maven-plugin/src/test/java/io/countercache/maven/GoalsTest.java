package io.countercache.maven;

import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.artifact.DefaultArtifact;
import org.apache.maven.artifact.handler.DefaultArtifactHandler;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.project.MavenProject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The goals on a project whose compiled classes are this module's test fixtures: a changelog written, then checked;
 * a stale one failing {@code check} with its diff; a bad declaration and a project with no entity failing either
 * goal with a message that says what to do.
 */
class GoalsTest {

    @TempDir
    Path base;

    private <M extends ChangelogMojo> M goal(M mojo, Path classes, String... packages) {
        MavenProject project = new MavenProject();
        project.setFile(base.resolve("pom.xml").toFile());
        project.getBuild().setOutputDirectory(classes.toString());
        mojo.project = project;
        mojo.changelog = new File("countercache.changelog.sql");
        mojo.packages = List.of(packages);
        return mojo;
    }

    private static Path testClasses() {
        return Path.of("target/test-classes").toAbsolutePath();
    }

    @Test
    void generateWritesTheChangelogAndCheckPassesUntilItIsStale() throws Exception {
        goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.good").execute();
        String written = Files.readString(base.resolve("countercache.changelog.sql"));
        assertThat(written).contains("-- changeset countercache:countercache-source-public.reply")
                .contains("\"declared_by\": \"Post.replies\"");
        goal(new CheckMojo(), testClasses(), "io.countercache.maven.fixture.good").execute();
        Files.writeString(base.resolve("countercache.changelog.sql"), written.replace("\n", "\r\n"));
        goal(new CheckMojo(), testClasses(), "io.countercache.maven.fixture.good").execute();   // checked out with CRLF

        Files.writeString(base.resolve("countercache.changelog.sql"), written.replace("\"Post.replies\"", "\"Post.old\""));
        assertThatThrownBy(() -> goal(new CheckMojo(), testClasses(), "io.countercache.maven.fixture.good").execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("mvn process-classes countercache:generate")
                .hasMessageContaining("-            \"declared_by\": \"Post.old\",")
                .hasMessageContaining("+            \"declared_by\": \"Post.replies\",");
    }

    @Test
    void withFormatFlywayTheGoalsWriteAndCheckRepeatableMigrations() throws Exception {
        GenerateMojo generate = goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.good");
        generate.format = "flyway";
        generate.migrations = new File("migration");
        generate.changelogName = "forum";
        generate.execute();
        assertThat(base.resolve("migration")).isDirectoryContaining("glob:**R__countercache_forum.sql")
                .isDirectoryContaining("glob:**R__countercache_forum_recount.sql")
                .isDirectoryContaining("glob:**R__countercache_forum_recount.sql.conf");
        assertThat(base.resolve("migration/R__countercache_forum.sql")).content().contains("\"declared_by\": \"Post.replies\"");
        CheckMojo check = goal(new CheckMojo(), testClasses(), "io.countercache.maven.fixture.good");
        check.format = "flyway";
        check.migrations = new File("migration");
        check.changelogName = "forum";
        check.execute();
        Files.writeString(base.resolve("migration/R__countercache_forum_recount.sql"), "-- edited");
        assertThatThrownBy(check::execute).isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("migration/R__countercache_forum_recount.sql differs from what the entities generate;"
                        + " run mvn process-classes countercache:generate -Dcountercache.format=flyway and commit it");
    }

    /** process-resources copied the old changelog before generate ran: one run of generate refreshes that copy too. */
    @Test
    void generateRefreshesTheCopyInTheBuildsClasses() throws Exception {
        Path classes = base.resolve("classes");
        copyTree(testClasses().resolve("io/countercache/maven/fixture/good"), classes.resolve("io/countercache/maven/fixture/good"));
        Files.createDirectories(classes.resolve("db"));
        Files.writeString(classes.resolve("db/countercache.changelog.sql"), "-- the copy of an older changelog");
        GenerateMojo generate = goal(new GenerateMojo(), classes, "io.countercache.maven.fixture.good");
        org.apache.maven.model.Resource resources = new org.apache.maven.model.Resource();
        resources.setDirectory("src/main/resources");
        generate.project.addResource(resources);
        generate.changelog = new File("src/main/resources/db/countercache.changelog.sql");
        generate.execute();
        assertThat(classes.resolve("db/countercache.changelog.sql"))
                .hasSameTextualContentAs(base.resolve("src/main/resources/db/countercache.changelog.sql"));
    }

    /**
     * Without {@code <packages>} the goals scan every entity, but model only those the counters need: an unrelated
     * entity that Hibernate would refuse does not fail the build.
     */
    @Test
    void withoutPackagesAnUnrelatedEntityIsLeftOut() throws Exception {
        Path classes = base.resolve("classes");
        for (String p : List.of("good", "unrelated")) {
            copyTree(testClasses().resolve("io/countercache/maven/fixture/" + p), classes.resolve("io/countercache/maven/fixture/" + p));
        }
        goal(new GenerateMojo(), classes).execute();
        assertThat(base.resolve("countercache.changelog.sql")).content()
                .contains("\"declared_by\": \"Post.replies\"")
                .contains("countercache.prune('io.countercache.maven.fixture', ");   // named as before: by every entity
        assertThatThrownBy(() -> goal(new GenerateMojo(), classes, "io.countercache.maven.fixture.unrelated").execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("Hibernate cannot map the entities the counters need: Entity 'io.countercache.maven.fixture.unrelated.Draft' has no identifier")
                .hasMessageEndingWith("fix that mapping, or name the packages to scan with <packages>");
    }

    /**
     * An entity added in another package would move the default name (the package that holds every entity), and with
     * it the prune's; the goals refuse, naming the old name to pin, in either format.
     */
    @Test
    void aChangelogKeepsTheNameItWasGeneratedUnder() throws Exception {
        Path classes = base.resolve("classes");
        for (String p : List.of("good", "unrelated")) {
            copyTree(testClasses().resolve("io/countercache/maven/fixture/" + p), classes.resolve("io/countercache/maven/fixture/" + p));
        }
        goal(new GenerateMojo(), classes, "io.countercache.maven.fixture.good").execute();
        assertThatThrownBy(() -> goal(new GenerateMojo(), classes).execute()).isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("countercache.changelog.sql was generated under the name"
                        + " \"io.countercache.maven.fixture.good\", and this run would name it \"io.countercache.maven.fixture\"")
                .hasMessageEndingWith("set <changelogName>io.countercache.maven.fixture.good</changelogName> on the"
                        + " plugin (to rename it on purpose, delete the old file first)");
        GenerateMojo pinned = goal(new GenerateMojo(), classes);
        pinned.changelogName = "io.countercache.maven.fixture.good";
        pinned.execute();

        GenerateMojo flyway = goal(new GenerateMojo(), classes, "io.countercache.maven.fixture.good");
        flyway.format = "flyway";
        flyway.migrations = new File("migration");
        flyway.execute();
        CheckMojo renamed = goal(new CheckMojo(), classes);
        renamed.format = "flyway";
        renamed.migrations = new File("migration");
        assertThatThrownBy(renamed::execute).isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("R__countercache_io_countercache_maven_fixture_good.sql was generated under the name")
                .hasMessageContaining("and Flyway would run both sets");
        // the set of another unit in the same directory, whose counters are others: not this one renamed
        GenerateMojo other = goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.other");
        other.format = "flyway";
        other.migrations = new File("migration");
        other.execute();
        assertThat(base.resolve("migration")).isDirectoryContaining("glob:**R__countercache_io_countercache_maven_fixture_other.sql")
                .isDirectoryContaining("glob:**R__countercache_io_countercache_maven_fixture_good.sql");
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (var files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    @Test
    void aBadDeclarationFailsTheBuildNamingTheFieldAndTheCandidates() {
        assertThatThrownBy(() -> goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.bad").execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("@CounterCache on Thread.messages")
                .hasMessageContaining("topic");
        assertThat(base.resolve("countercache.changelog.sql")).doesNotExist();
    }

    /** An entity whose only counters are inside an embeddable is modelled, so the build says they are never counted. */
    @Test
    void aCounterInsideAnEmbeddableFailsTheBuild() {
        assertThatThrownBy(() -> goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.embedded")
                .execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("@CounterCache on Account.tally.payments: a counter inside an @Embeddable (Tally)"
                        + " is never counted; declare it on Account itself");
        assertThat(base.resolve("countercache.changelog.sql")).doesNotExist();
    }

    /** The plugin generates with its own library: a project on another release is told to align them. */
    @Test
    void aProjectOnAnotherReleaseOfTheLibraryFailsTheBuild() {
        GenerateMojo generate = goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.good");
        generate.plugin = new PluginDescriptor();
        generate.plugin.setVersion("0.2.0");
        generate.project.setArtifacts(Set.of(new DefaultArtifact("io.countercache", "countercache-core",
                "0.1.0", "compile", "jar", null, new DefaultArtifactHandler("jar"))));
        assertThatThrownBy(generate::execute).isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("the project uses countercache 0.1.0 and this plugin is release 0.2.0")
                .hasMessageContaining("give the plugin the project's version, 0.1.0");
        generate.plugin.setVersion("0.1.0");
        assertThatCode(generate::execute).as("the same release").doesNotThrowAnyException();
    }

    /** A naming setting given by a placeholder would name what the build guesses: the plugin asks for the value. */
    @Test
    void aNamingSettingGivenByAPlaceholderIsAskedFor() throws Exception {
        Path properties = base.resolve("src/main/resources/application.properties");
        Files.createDirectories(properties.getParent());
        Files.writeString(properties, "spring.jpa.properties.hibernate.default_schema=${DB_SCHEMA:app}\n");
        GenerateMojo generate = goal(new GenerateMojo(), testClasses(), "io.countercache.maven.fixture.good");
        assertThatThrownBy(generate::execute).isInstanceOf(MojoFailureException.class)
                .hasMessage("countercache: hibernate.default_schema = ${DB_SCHEMA:app} is a placeholder, which the build"
                        + " cannot resolve as the running application will; give its value in the plugin's"
                        + " <settings><hibernate.default_schema>...</hibernate.default_schema></settings>");
        generate.settings = Map.of("hibernate.default_schema", "app");
        generate.execute();
        assertThat(base.resolve("countercache.changelog.sql")).content().contains("\"target_schema\": \"app\"");
    }

    @Test
    void aProjectWithNoEntityFailsWithWhatToDo() throws Exception {
        Path empty = Files.createDirectories(base.resolve("target/classes"));
        assertThatThrownBy(() -> goal(new GenerateMojo(), empty).execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessage("countercache: no @Entity class in " + empty + "; compile the project first (the goals run"
                        + " after process-classes)");
        assertThatThrownBy(() -> goal(new CheckMojo(), testClasses(), "com.acme.nothing").execute())
                .isInstanceOf(MojoFailureException.class)
                .hasMessageContaining("no @Entity class in " + testClasses() + " under [com.acme.nothing]");
    }
}
