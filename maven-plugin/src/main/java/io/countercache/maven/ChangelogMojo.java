package io.countercache.maven;

import io.countercache.CounterCacheException;
import io.countercache.flyway.MigrationWriter;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.hibernate.spi.PersistenceSettings;
import io.countercache.liquibase.ChangelogWriter;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What both goals share: the project's entities, its naming settings, and the changelog they generate. */
abstract class ChangelogMojo extends AbstractMojo {

    /** The prune of a generated changelog or migration, which names the changelog. */
    private static final Pattern PRUNE = Pattern.compile("countercache\\.prune\\('((?:[^']|'')*)', ARRAY\\[([^]]*)]");
    /** One of the counters it keeps. */
    private static final Pattern LITERAL = Pattern.compile("'((?:[^']|'')*)'");

    /** The command that writes the changelog again, named in its header. */
    static final String REGENERATE = "mvn process-classes countercache:generate";

    /** The command that writes this goal's files again: the Flyway migrations need the format said. */
    String regenerate() {
        return "flyway".equals(format) ? REGENERATE + " -Dcountercache.format=flyway" : REGENERATE;
    }

    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    MavenProject project;

    /** This plugin, for its version. */
    @Parameter(defaultValue = "${plugin}", readonly = true)
    PluginDescriptor plugin;

    /** The changelog file, relative to the project's directory. */
    @Parameter(property = "countercache.changelog", defaultValue = "src/main/resources/db/changelog/countercache.changelog.sql")
    File changelog;

    /**
     * Hibernate settings that change names ({@code hibernate.physical_naming_strategy}, {@code hibernate.default_schema},
     * ...). They override what the project's persistence configuration says (see {@link PersistenceSettings}).
     */
    @Parameter
    Map<String, String> settings = new LinkedHashMap<>();

    /**
     * What to write: {@code liquibase} (the changelog file, the default) or {@code flyway} (repeatable migrations in
     * {@code migrations}).
     */
    @Parameter(property = "countercache.format", defaultValue = "liquibase")
    String format = "liquibase";

    /** The directory of the Flyway migrations, relative to the project's directory (format flyway). */
    @Parameter(property = "countercache.migrations", defaultValue = "src/main/resources/db/migration")
    File migrations = new File("src/main/resources/db/migration");

    /** The changelog's name (default: the package that holds every entity); see the README. */
    @Parameter(property = "countercache.changelogName")
    String changelogName;

    /**
     * Only entities in these packages (and below); default: every entity of the project's classes, of which only those
     * the counters reach are modelled (see {@link ProjectEntities#needed}).
     */
    @Parameter
    List<String> packages = new ArrayList<>();

    @Parameter(property = "countercache.skip", defaultValue = "false")
    boolean skip;

    /**
     * The files the project's entities generate (absolute path to text): the changelog, or the Flyway migrations; or
     * a build failure that names every bad declaration.
     */
    Map<Path, String> render() throws MojoExecutionException, MojoFailureException {
        sameRelease();
        Path classes = Path.of(project.getBuild().getOutputDirectory());
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(classpath(), getClass().getClassLoader())) {
            thread.setContextClassLoader(loader);
            List<Class<?>> entities = ProjectEntities.find(classes, loader, packages);
            if (entities.isEmpty()) {
                throw new MojoFailureException("countercache: no @Entity class in " + classes
                        + (packages.isEmpty() ? "" : " under " + packages) + "; compile the project first (the goals"
                        + " run after process-classes)");
            }
            Map<String, Object> resolved = new LinkedHashMap<>(PersistenceSettings.read(project.getBasedir().toPath(),
                    classes, loader));
            resolved.putAll(settings);
            String key = PersistenceSettings.placeholder(resolved);
            if (key != null) {
                throw new MojoFailureException("countercache: " + key + " = " + resolved.get(key) + " is a"
                        + " placeholder, which the build cannot resolve as the running application will; give its"
                        + " value in the plugin's <settings><" + key + ">...</" + key + "></settings>");
            }
            getLog().debug("countercache: entities " + entities + ", settings " + resolved);
            Quiet.hibernate();
            String name = changelogName != null ? changelogName : EntityModel.changelogName(entities);
            entities = ProjectEntities.needed(entities);
            Map<Path, String> files = new LinkedHashMap<>();
            switch (format) {
                case "liquibase" -> files.put(changelogFile().toPath().toAbsolutePath().normalize(), ChangelogWriter.render(
                        name, EntityModel.counters(entities, resolved), EntityModel.limits(entities), REGENERATE));
                case "flyway" -> {
                    Path dir = migrationsDir();
                    MigrationWriter.render(name, EntityModel.counters(entities, resolved), EntityModel.limits(entities),
                            REGENERATE).forEach((f, text) -> files.put(dir.resolve(f), text));
                }
                default -> throw new MojoFailureException("countercache: format = \"" + format
                        + "\" is neither liquibase nor flyway");
            }
            keepsItsName(name, files);   // after the model, whose errors come first
            return files;
        } catch (CounterCacheException e) {
            throw new MojoFailureException(e.getMessage(), e);
        } catch (org.hibernate.MappingException e) {
            throw new MojoFailureException("countercache: Hibernate cannot map the entities the counters need: "
                    + e.getMessage() + "; fix that mapping, or name the packages to scan with <packages>", e);
        } catch (IOException e) {
            throw new MojoExecutionException("countercache: cannot read " + classes + ": " + e.getMessage(), e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /**
     * Refuses a project whose countercache library is another release than this plugin: the plugin generates with its
     * own library, whose SQL the application's boot check would refuse, and whose annotations may lack attributes.
     */
    private void sameRelease() throws MojoFailureException {
        if (plugin == null) {
            return;
        }
        for (Artifact a : project.getArtifacts()) {
            if ("io.countercache".equals(a.getGroupId()) && "countercache-core".equals(a.getArtifactId())
                    && !a.getBaseVersion().equals(plugin.getVersion())) {
                throw new MojoFailureException("countercache: the project uses countercache " + a.getBaseVersion()
                        + " and this plugin is release " + plugin.getVersion() + ", whose changelog the application's"
                        + " boot check would refuse; give the plugin the project's version, " + a.getBaseVersion()
                        + " (a property that both use keeps them together)");
            }
        }
    }

    /**
     * Refuses to rename what the project has generated before: a changelog's prune forgets only the counters of its
     * own name, and Flyway runs a set under the old name as well. The name defaults to the package that holds every
     * entity, so an entity added elsewhere would change it unseen. A Flyway set of another name counts as this one
     * renamed when it keeps a counter this one declares (a directory may hold the sets of several units).
     */
    private void keepsItsName(String name, Map<Path, String> generated) throws MojoExecutionException,
            MojoFailureException {
        Set<String> declared = new HashSet<>();
        generated.values().forEach(text -> declared.addAll(pruneOf(text).kept()));
        List<Path> before = new ArrayList<>();
        try {
            if ("flyway".equals(format)) {
                if (Files.isDirectory(migrationsDir())) {
                    try (Stream<Path> files = Files.list(migrationsDir())) {
                        files.filter(f -> f.getFileName().toString().matches("R__countercache_.*(?<!_recount)\\.sql"))
                                .sorted().forEach(before::add);
                    }
                }
            } else if (changelogFile().exists()) {
                before.add(changelogFile().toPath());
            }
            for (Path f : before) {
                Prune old = pruneOf(Files.readString(f, StandardCharsets.UTF_8));
                boolean same = !"flyway".equals(format) || old.kept().stream().anyMatch(declared::contains);
                if (old.name() != null && !old.name().equals(name) && same) {
                    throw new MojoFailureException("countercache: " + project.getBasedir().toPath().relativize(
                            f.toAbsolutePath()) + " was generated under the name \"" + old.name() + "\", and this run"
                            + " would name it \"" + name + "\"" + (changelogName != null ? "" : " (the package that"
                            + " holds every entity)") + "; a changelog keeps its name, since its prune forgets only the"
                            + " counters of its own name" + ("flyway".equals(format) ? " and Flyway would run both sets"
                            : "") + ": set <changelogName>" + old.name() + "</changelogName> on the plugin (to rename"
                            + " it on purpose, delete the old file first)");
                }
            }
        } catch (IOException e) {
            throw new MojoExecutionException("countercache: cannot read " + before + ": " + e.getMessage(), e);
        }
    }

    /** A generated text's prune: the changelog's name (null when none) and the counters it keeps. */
    private record Prune(String name, Set<String> kept) {
    }

    private static Prune pruneOf(String text) {
        Matcher prune = PRUNE.matcher(text);
        if (!prune.find()) {
            return new Prune(null, Set.of());
        }
        Set<String> kept = new HashSet<>();
        Matcher literal = LITERAL.matcher(prune.group(2));
        while (literal.find()) {
            kept.add(literal.group(1).replace("''", "'"));
        }
        return new Prune(prune.group(1).replace("''", "'"), kept);
    }

    /** The directory of the Flyway migrations. */
    private Path migrationsDir() {
        return (migrations.isAbsolute() ? migrations : new File(project.getBasedir(), migrations.getPath())).toPath()
                .toAbsolutePath().normalize();
    }

    private URL[] classpath() throws MojoExecutionException {
        List<URL> urls = new ArrayList<>();
        try {
            for (String element : project.getCompileClasspathElements()) {
                urls.add(new File(element).toURI().toURL());
            }
        } catch (org.apache.maven.artifact.DependencyResolutionRequiredException | MalformedURLException e) {
            throw new MojoExecutionException("countercache: cannot build the project's classpath: " + e.getMessage(), e);
        }
        return urls.toArray(URL[]::new);
    }

    File changelogFile() {
        return changelog.isAbsolute() ? changelog : new File(project.getBasedir(), changelog.getPath());
    }
}
