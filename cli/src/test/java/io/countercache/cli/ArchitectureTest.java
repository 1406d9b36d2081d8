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

import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The package map of docs/architecture.md, checked on the compiled classes of every module: core knows neither
 * Hibernate nor Liquibase, no module reaches into one downstream of it, and internal types never appear in a public
 * signature of an API or spi package.
 */
class ArchitectureTest {

    private static final JavaClasses ALL = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.countercache");

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
