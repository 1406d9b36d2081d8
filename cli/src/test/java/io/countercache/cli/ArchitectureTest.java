package io.countercache.cli;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package map of docs/architecture.md, checked on the compiled classes of every module: core knows neither
 * Hibernate nor Liquibase, no module reaches into one downstream of it, and internal types never appear in a public
 * signature of an API or spi package.
 */
class ArchitectureTest {

    private static final JavaClasses ALL = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.countercache");

    /** The modules built on everything else, which cli does not depend on: from their build output (built before cli). */
    private static final JavaClasses TOOLS = new ClassFileImporter().importPaths(
            built("maven-plugin"), built("spring-boot-starter"));

    private static Path built(String module) {
        Path classes = Path.of("..", module, "target", "classes");
        if (!Files.isDirectory(classes.resolve("io/countercache"))) {
            throw new IllegalStateException(classes + " is missing: build " + module + " first (mvn verify builds it"
                    + " before cli)");
        }
        return classes;
    }

    @Test
    void theMavenPluginAndTheStarterUseOnlyApiAndSpi() {
        noClasses().that().resideInAnyPackage("io.countercache.maven..", "io.countercache.spring..")
                .should().dependOnClassesThat().resideInAnyPackage("io.countercache.internal..",
                        "io.countercache.hibernate.internal..", "io.countercache.cli..")
                .check(TOOLS);
        noClasses().that().resideInAPackage("io.countercache.spring..")
                .should().dependOnClassesThat().resideInAnyPackage("io.countercache.maven..", "io.countercache.liquibase..")
                .check(TOOLS);
        noClasses().that().resideInAPackage("io.countercache.maven..")
                .should().dependOnClassesThat().resideInAnyPackage("io.countercache.spring..", "org.springframework..")
                .check(TOOLS);
    }

    private static final String[] CORE = {"io.countercache", "io.countercache.spi", "io.countercache.internal",
            "io.countercache.micrometer"};

    @Test
    void coreKnowsNeitherHibernateNorLiquibaseNorTheModulesBuiltOnIt() {
        noClasses().that().resideInAnyPackage(CORE)
                .should().dependOnClassesThat().resideInAnyPackage("org.hibernate..", "jakarta.persistence..",
                        "liquibase..", "io.countercache.hibernate..", "io.countercache.liquibase..", "io.countercache.cli..")
                .check(ALL);
    }

    @Test
    void theIntegrationsDoNotKnowEachOther() {
        noClasses().that().resideInAPackage("io.countercache.liquibase..")
                .should().dependOnClassesThat().resideInAnyPackage("org.hibernate..", "io.countercache.hibernate..",
                        "io.countercache.cli..")
                .check(ALL);
        noClasses().that().resideInAPackage("io.countercache.hibernate..")
                .should().dependOnClassesThat().resideInAnyPackage("liquibase..", "io.countercache.liquibase..",
                        "io.countercache.cli..")
                .check(ALL);
    }

    @Test
    void publicSignaturesOfApiAndSpiPackagesTakeAndReturnNoInternalType() {
        codeUnits().that().arePublic()
                .and().areDeclaredInClassesThat().resideOutsideOfPackage("..internal..")
                .and().areDeclaredInClassesThat(isPublic())
                .should(notExposeInternalTypes())
                .check(ALL);
    }

    /**
     * Java calls the SQL API, never the library's tables: no main source file of any module (the benchmarks, which
     * measure the queue's size, aside) names a table or view of the countercache schema.
     */
    @Test
    void noMainSourceNamesATableOfTheLibrary() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Path sql = root.resolve("core/src/main/resources/io/countercache/sql");
        Set<String> tables = new TreeSet<>();
        Pattern created = Pattern.compile("CREATE (?:UNLOGGED )?(?:TABLE|(?:OR REPLACE )?VIEW) (?:IF NOT EXISTS )?countercache\\.(\\w+)");
        try (Stream<Path> files = Files.walk(sql)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".sql")).toList()) {
                created.matcher(Files.readString(f)).results().forEach(m -> tables.add(m.group(1)));
            }
        }
        assertThat(tables).contains("counter", "delta", "dead_letter", "schema_version", "limit_usage_report");
        Pattern named = Pattern.compile("countercache\\.(" + String.join("|", tables) + ")\\b(?!\\()");
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/java/")
                    && !f.startsWith(root.resolve("benchmarks"))).toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    if (named.matcher(lines.get(i)).find()) {
                        found.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertThat(found).as("main sources naming a table of the countercache schema (call a function of the SQL API)")
                .isEmpty();
    }

    private static DescribedPredicate<JavaClass> isPublic() {
        return DescribedPredicate.describe("are public", c -> c.getModifiers().contains(JavaModifier.PUBLIC));
    }

    private static ArchCondition<JavaCodeUnit> notExposeInternalTypes() {
        return new ArchCondition<>("take and return no type of an internal package") {
            @Override
            public void check(JavaCodeUnit unit, ConditionEvents events) {
                Stream.concat(Stream.of(unit.getRawReturnType()), unit.getRawParameterTypes().stream())
                        .filter(t -> t.getPackageName().contains(".internal"))
                        .forEach(t -> events.add(SimpleConditionEvent.violated(unit,
                                unit.getFullName() + " exposes " + t.getName())));
            }
        };
    }
}
