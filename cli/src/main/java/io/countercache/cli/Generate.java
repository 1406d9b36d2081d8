package io.countercache.cli;

import io.countercache.flyway.MigrationWriter;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.hibernate.spi.PersistenceSettings;
import io.countercache.liquibase.ChangelogWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Writes the changelog for the counters of some entity classes, which must be on the classpath:
 *
 * <pre>
 * java -cp app-classes:deps:countercache-cli.jar io.countercache.cli.Main generate \
 *      --out src/main/resources/db/countercache.changelog.sql \
 *      [--setting hibernate.physical_naming_strategy=...] com.acme.Article com.acme.Comment ...
 * </pre>
 *
 * <p>The entity model is built exactly as Hibernate builds it at boot (PostgreSQL dialect, no database needed), with
 * the naming settings the application's configuration on the classpath gives ({@code META-INF/persistence.xml},
 * Spring Boot's {@code application.properties} or {@code .yml}, as {@link PersistenceSettings} reads them), and over
 * them those given with {@code --setting}.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = "Write the Liquibase changelog (or, with --flyway, the Flyway migrations) that installs the"
                + " counters of these entity classes.")
final class Generate implements Callable<Integer> {

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the changelog (default: standard output).")
    Path out;

    @Option(names = "--flyway", paramLabel = "DIR",
            description = "Write Flyway repeatable migrations into this directory instead of a Liquibase changelog.")
    Path flyway;

    @Option(names = "--setting", paramLabel = "KEY=VALUE",
            description = "A Hibernate setting that changes names (naming strategies, default schema), over what the"
                    + " application's persistence.xml or application.properties/.yml on the classpath says;"
                    + " repeatable.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--changelog-name", paramLabel = "NAME",
            description = "The changelog's name: applying it prunes only counters a changelog of this name installed"
                    + " (default: the package that holds every entity).")
    String changelogName;

    @Parameters(arity = "1..*", paramLabel = "ENTITY", description = "Entity class names, on the classpath.")
    List<String> entityNames = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ClassLoader classpath = context != null ? context : Generate.class.getClassLoader();
        List<Class<?>> entities = new ArrayList<>();
        for (String name : entityNames) {
            try {
                entities.add(Class.forName(name, true, classpath));
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("entity class " + name + " is not on the classpath");
            }
        }
        Map<String, Object> resolved = new LinkedHashMap<>(PersistenceSettings.read(classpath));
        resolved.putAll(settings);
        String key = PersistenceSettings.placeholder(resolved);
        if (key != null) {
            throw new IllegalArgumentException(key + " = " + resolved.get(key) + " is a placeholder, which only the"
                    + " running application resolves; give its value with --setting");
        }
        String name = changelogName != null ? changelogName : EntityModel.changelogName(entities);
        var counters = EntityModel.counters(entities, resolved);
        if (flyway != null) {
            Files.createDirectories(flyway);
            for (var file : MigrationWriter.render(name, counters, EntityModel.limits(entities), null).entrySet()) {
                Files.writeString(flyway.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
            }
            return 0;
        }
        String text = ChangelogWriter.render(name, counters, EntityModel.limits(entities), null);
        if (out == null) {
            System.out.print(text);
        } else {
            Files.writeString(out, text, StandardCharsets.UTF_8);
        }
        return 0;
    }
}
