package io.countercache.hibernate.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The naming settings of a real persistence.xml, in the namespaces of JPA 3 (Jakarta), JPA 2.1 and 2.2 (jcp.org), JPA
 * 2.0 (java.sun.com), and in none.
 */
class PersistenceSettingsTest {

    @TempDir
    Path basedir;

    @ParameterizedTest
    @ValueSource(strings = {"https://jakarta.ee/xml/ns/persistence", "http://xmlns.jcp.org/xml/ns/persistence",
            "http://java.sun.com/xml/ns/persistence", ""})
    void theNamingStrategyOfTheFirstPersistenceUnitIsRead(String namespace) throws Exception {
        Path xml = basedir.resolve("src/main/resources/META-INF/persistence.xml");
        Files.createDirectories(xml.getParent());
        Files.writeString(xml, """
                <?xml version="1.0" encoding="UTF-8"?>
                <persistence %s version="3.0">
                  <persistence-unit name="shop">
                    <properties>
                      <property name="hibernate.physical_naming_strategy"
                                value="org.hibernate.boot.model.naming.PhysicalNamingStrategySnakeCaseImpl"/>
                      <property name="jakarta.persistence.jdbc.url" value="jdbc:postgresql://localhost/shop"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """.formatted(namespace.isEmpty() ? "" : "xmlns=\"" + namespace + "\""));
        assertThat(read())
                .containsEntry("hibernate.physical_naming_strategy",
                        "org.hibernate.boot.model.naming.PhysicalNamingStrategySnakeCaseImpl")
                .doesNotContainKey("jakarta.persistence.jdbc.url");
    }

    /** The Spring Boot starter's countercache.strategy decides the changelog's strategy, as it decides the boot's. */
    @Test
    void theStartersStrategyIsReadFromSpringBootsFiles() throws Exception {
        Path properties = basedir.resolve("src/main/resources/application.properties");
        Files.createDirectories(properties.getParent());
        Files.writeString(properties, "spring.jpa.properties.countercache.strategy=slotted\ncountercache.strategy=unlogged\n");
        assertThat(read())
                .containsEntry("countercache.strategy", "unlogged");
        Files.delete(properties);
        Files.writeString(basedir.resolve("src/main/resources/application.yml"), "countercache:\n  strategy: direct\n");
        assertThat(read())
                .containsEntry("countercache.strategy", "direct");
    }

    /**
     * A document of a profile, which the application runs without, leaves the names alone, in either file; one the
     * application activates itself does not.
     */
    @Test
    void aProfilesDocumentIsNotTheApplications() throws Exception {
        Path yml = basedir.resolve("src/main/resources/application.yml");
        Files.createDirectories(yml.getParent());
        Files.writeString(yml, """
                spring:
                  jpa:
                    properties:
                      hibernate:
                        default_schema: app
                ---
                spring:
                  config:
                    activate:
                      on-profile: test
                  jpa:
                    properties:
                      hibernate:
                        default_schema: scratch
                """);
        assertThat(read())
                .containsEntry("hibernate.default_schema", "app");
        Files.delete(yml);
        Files.writeString(basedir.resolve("src/main/resources/application.properties"),
                "spring.jpa.properties.hibernate.default_schema=app\n#---\nspring.config.activate.on-profile=test\n"
                        + "spring.jpa.properties.hibernate.default_schema=scratch\n");
        assertThat(read())
                .containsEntry("hibernate.default_schema", "app");
        // unless the application's own document activates the profile
        Files.writeString(basedir.resolve("src/main/resources/application.properties"),
                "spring.profiles.active=prod\nspring.jpa.properties.hibernate.default_schema=app\n!---\n"
                        + "spring.config.activate.on-profile=prod\nspring.jpa.properties.hibernate.default_schema=live\n");
        assertThat(read())
                .containsEntry("hibernate.default_schema", "live");
    }

    /** The copy in the build's classes, where resource filtering has replaced placeholders, is the one read. */
    @Test
    void theFilteredCopyInTheClassesIsRead() throws Exception {
        Path written = basedir.resolve("src/main/resources/application.properties");
        Path copied = basedir.resolve("target/classes/application.properties");
        Files.createDirectories(written.getParent());
        Files.createDirectories(copied.getParent());
        Files.writeString(written, "spring.jpa.properties.hibernate.default_schema=${db.schema}\n");
        Files.writeString(copied, "spring.jpa.properties.hibernate.default_schema=app\n");
        assertThat(read())
                .containsEntry("hibernate.default_schema", "app");
    }

    /** The files of a classpath, as the CLI reads them: the first of each name, in a directory or a jar. */
    @Test
    void theFilesOfAClasspathAreRead() throws Exception {
        Path jar = basedir.resolve("app.jar");
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new java.util.jar.JarEntry("application.yml"));
            out.write("spring:\n  jpa:\n    properties:\n      hibernate.default_schema: shop\n".getBytes());
            out.closeEntry();
        }
        Path classes = Files.createDirectories(basedir.resolve("classes"));
        Files.writeString(classes.resolve("application.properties"),
                "spring.jpa.hibernate.naming.physical-strategy=com.acme.Naming\n");
        try (var loader = new java.net.URLClassLoader(new java.net.URL[]{classes.toUri().toURL(), jar.toUri().toURL()},
                null)) {
            assertThat(PersistenceSettings.read(loader))
                    .containsEntry("hibernate.physical_naming_strategy", "com.acme.Naming")
                    .containsEntry("hibernate.default_schema", "shop");
        }
    }

    @Test
    void springYamlBecomesDottedKeys() {
        assertThat(PersistenceSettings.yaml(List.of("spring:", "  jpa:", "    hibernate:", "      naming:",
                "        physical-strategy: com.acme.Naming  # ours", "    properties:",
                "      hibernate.default_schema: \"shop\"", "server:", "  port: 8080")))
                .singleElement().isEqualTo(Map.of("spring.jpa.hibernate.naming.physical-strategy", "com.acme.Naming",
                        "spring.jpa.properties.hibernate.default_schema", "shop", "server.port", "8080"));
    }

    private java.util.Map<String, String> read() throws java.io.IOException {
        return PersistenceSettings.read(basedir, basedir.resolve("target/classes"), getClass().getClassLoader());
    }
}
