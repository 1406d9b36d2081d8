package io.countercache.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The countercache command line. Each verb is a subcommand with its own {@code --help}; exit codes: 0 success, 1 the
 * check failed (a drifted counter, an out-of-date changelog) or a drain gave up on deltas that still wait, 2 bad usage
 * or input.
 */
@Command(name = "countercache", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        subcommands = {Generate.class, Status.class, Drain.class, Verify.class, Repair.class},
        description = "Counter caches for JPA/Hibernate applications on PostgreSQL.")
public final class Main {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The version the build wrote into the jar's manifest (none when run from classes, as in tests). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[]{"countercache " + (version == null ? "(not run from its jar: version unknown)" : version)};
        }
    }

    /** Runs a command line and returns its exit code, without exiting. */
    public static int run(String... args) {
        return new CommandLine(new Main()).setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getColorScheme().errorText("countercache: " + e.getMessage()));
            return 2;
        }).execute(args);
    }
}
