package io.countercache.liquibase;

import io.countercache.CounterCacheException;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.RollbackCountCommandStep;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.resource.DirectoryResourceAccessor;
import liquibase.resource.ResourceAccessor;

import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;

/**
 * Applies a changelog with Liquibase's update command, for applications that do not run Liquibase some other way
 * (Spring Boot's Liquibase support applies the generated changelog as it applies any other).
 */
public final class CounterCacheLiquibase {

    private CounterCacheLiquibase() {
    }

    /** Applies a changelog found on the class path, for example {@code db/changelog/master.xml}. */
    public static void update(Connection connection, String classpathChangelog) {
        update(connection, classpathChangelog, new ClassLoaderResourceAccessor(CounterCacheLiquibase.class.getClassLoader()));
    }

    /** Applies a changelog file from the file system. */
    public static void update(Connection connection, Path changelogFile) {
        Path file = changelogFile.toAbsolutePath();
        try {
            update(connection, file.getFileName().toString(), new DirectoryResourceAccessor(file.getParent()));
        } catch (FileNotFoundException e) {
            throw new CounterCacheException("changelog " + file + " does not exist", e);
        }
    }

    /**
     * Rolls back the last {@code count} changesets applied from a changelog file (Liquibase's rollback-count). Each
     * generated changeset has a rollback: a table's changeset drops its triggers (and a source's, its counters), the
     * schema's drops the {@code countercache} schema; applying again installs and recounts.
     */
    public static void rollbackCount(Connection connection, Path changelogFile, int count) {
        Path file = changelogFile.toAbsolutePath();
        try {
            run(connection, file.getFileName().toString(), new DirectoryResourceAccessor(file.getParent()),
                    RollbackCountCommandStep.COMMAND_NAME, "rolling back " + count + " changesets of", scope -> scope
                            .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_FILE_ARG, file.getFileName().toString())
                            .addArgumentValue(RollbackCountCommandStep.COUNT_ARG, count));
        } catch (FileNotFoundException e) {
            throw new CounterCacheException("changelog " + file + " does not exist", e);
        }
    }

    private static void update(Connection connection, String changelog, ResourceAccessor resources) {
        run(connection, changelog, resources, UpdateCommandStep.COMMAND_NAME, "applying",
                scope -> scope.addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog));
    }

    private static void run(Connection connection, String changelog, ResourceAccessor resources, String[] command,
                            String what, java.util.function.Consumer<CommandScope> arguments) {
        try {
            Scope.child(Map.of(Scope.Attr.resourceAccessor.name(), resources, "liquibase.analytics.enabled", false,
                    "liquibase.showBanner", false), () -> {
                Database database = DatabaseFactory.getInstance()
                        .findCorrectDatabaseImplementation(new JdbcConnection(connection));
                CommandScope scope = new CommandScope(command)
                        .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database);
                arguments.accept(scope);
                scope.execute();
            });
        } catch (Exception e) {
            throw new CounterCacheException(what + " " + changelog + " failed: " + rootMessage(e), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
