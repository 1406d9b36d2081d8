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
 * Fails the build, with the difference, when the committed changelog is not what the entities generate: a counter
 * was added, changed or removed and {@code countercache:generate} was not run (or the file was edited by hand).
 */
@Mojo(name = "check", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true,
        requiresDependencyResolution = ResolutionScope.COMPILE)
public class CheckMojo extends ChangelogMojo {

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            return;
        }
        for (var generated : render().entrySet()) {
            var file = generated.getKey();
            String expected = generated.getValue(), committed;
            try {
                // a checkout may turn the generated LF into CRLF (Git for Windows' autocrlf): the same changelog
                committed = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n")
                        : "";
            } catch (IOException e) {
                throw new MojoExecutionException("countercache: cannot read " + file + ": " + e.getMessage(), e);
            }
            if (!committed.equals(expected)) {
                String name = project.getBasedir().toPath().relativize(file).toString();
                throw new MojoFailureException("countercache: " + name + (committed.isEmpty() ? " does not exist"
                        : " differs from what the entities generate") + "; run " + regenerate() + " and commit it\n"
                        + LineDiff.unified(name, committed, expected, 3));
            }
        }
    }
}
