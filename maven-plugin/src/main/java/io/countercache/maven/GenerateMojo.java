package io.countercache.maven;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.ResolutionScope;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * Writes the Liquibase changelog that installs the counters of the project's entities:
 * {@code mvn process-classes countercache:generate}. The file is deterministic, so it diffs cleanly in review.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.PROCESS_CLASSES, threadSafe = true,
        requiresDependencyResolution = ResolutionScope.COMPILE)
public class GenerateMojo extends ChangelogMojo {

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            return;
        }
        String text = render();
        try {
            var file = changelogFile().toPath();
            if (Files.exists(file) && Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
                getLog().debug("countercache: " + file + " is up to date");
                return;
            }
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            getLog().info("countercache: wrote " + project.getBasedir().toPath().relativize(file));
        } catch (IOException e) {
            throw new MojoExecutionException("countercache: cannot write " + changelogFile() + ": " + e.getMessage(), e);
        }
    }
}
