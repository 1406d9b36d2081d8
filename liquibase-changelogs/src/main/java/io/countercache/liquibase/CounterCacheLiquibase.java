package io.countercache.liquibase;

import io.countercache.CounterCacheException;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
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

    private static void update(Connection connection, String changelog, ResourceAccessor resources) {
        try {
            Scope.child(Map.of(Scope.Attr.resourceAccessor.name(), resources, "liquibase.analytics.enabled", false,
                    "liquibase.showBanner", false), () -> {
                Database database = DatabaseFactory.getInstance()
                        .findCorrectDatabaseImplementation(new JdbcConnection(connection));
                new CommandScope(UpdateCommandStep.COMMAND_NAME)
                        .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                        .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                        .execute();
            });
        } catch (Exception e) {
            throw new CounterCacheException("applying " + changelog + " failed: " + rootMessage(e), e);
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
