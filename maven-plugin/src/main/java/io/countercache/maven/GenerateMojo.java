package io.countercache.maven;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.ResolutionScope;

import org.apache.maven.model.Resource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the Liquibase changelog (or, with {@code format} flyway, the Flyway migrations) that installs the counters
 * of the project's entities:
 * {@code mvn process-classes countercache:generate}. The file is deterministic, so it diffs cleanly in review. When it
 * lies in a resource directory, its copy in the build's output directory is refreshed too: process-resources copied
 * the old file before this goal ran, and an application started from the build's classes would apply that one.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.PROCESS_CLASSES, threadSafe = true,
        requiresDependencyResolution = ResolutionScope.COMPILE)
public class GenerateMojo extends ChangelogMojo {

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            return;
        }
        for (var generated : render().entrySet()) {
            Path file = generated.getKey();
            String text = generated.getValue();
            write(file, text, project.getBasedir().toPath().relativize(file).toString());
            for (Resource r : project.getResources()) {
                Path dir = project.getBasedir().toPath().resolve(r.getDirectory()).toAbsolutePath().normalize();
                if (file.startsWith(dir) && !r.isFiltering()) {
                    Path out = Path.of(project.getBuild().getOutputDirectory());
                    Path copy = (r.getTargetPath() == null ? out : out.resolve(r.getTargetPath())).resolve(dir.relativize(file));
                    write(copy, text, "its copy in " + project.getBasedir().toPath().relativize(copy.toAbsolutePath()));
                }
            }
        }
    }

    private void write(Path file, String text, String what) throws MojoExecutionException {
        try {
            if (Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
                getLog().debug("countercache: " + what + " is up to date");
                return;
            }
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            getLog().info("countercache: wrote " + what);
        } catch (IOException e) {
            throw new MojoExecutionException("countercache: cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
