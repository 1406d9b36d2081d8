package io.countercache.hibernate.spi;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Hibernate settings that change table and column names, as a project configures them for its application:
 * {@code META-INF/persistence.xml}, or Spring Boot's {@code application.properties} / {@code application.yml}
 * ({@code spring.jpa.hibernate.naming.*}, {@code spring.jpa.properties.hibernate.*}, and the starter's
 * {@code countercache.strategy}), with Spring Boot's own default naming strategies when Spring Boot's JPA support is
 * on the classpath and names none. A changelog generated without them would name other columns than the
 * application's tables have. The build plugin reads them from the project's files, the CLI from the classpath it is
 * given, as the application does at boot.
 */
public final class PersistenceSettings {

    /** The settings that decide names (and the library's own default strategy). */
    public static final List<String> NAMING = List.of("hibernate.physical_naming_strategy",
            "hibernate.implicit_naming_strategy", "hibernate.default_schema", "hibernate.default_catalog",
            "hibernate.globally_quoted_identifiers", "hibernate.globally_quoted_identifiers_skip_column_definitions",
            "hibernate.auto_quote_keyword", "countercache.strategy");

    /** The key of a Spring Boot document that only a profile activates. */
    private static final String ON_PROFILE = "spring.config.activate.on-profile";

    private PersistenceSettings() {
    }

    /**
     * The settings of a project's files: each as the build copied it to its classes (after resource filtering has
     * replaced its {@code ${...}}), else as written in {@code src/main/resources}.
     */
    public static Map<String, String> read(Path basedir, Path classes, ClassLoader project) throws IOException {
        Path written = basedir.resolve("src/main/resources");
        return read(name -> {
            Path file = Files.exists(classes.resolve(name)) ? classes.resolve(name) : written.resolve(name);
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
        }, project);
    }

    /** The settings of the files on a classpath: the first of each name, as the application finds it at boot. */
    public static Map<String, String> read(ClassLoader classpath) throws IOException {
        return read(name -> {
            URL url = classpath.getResource(name);
            if (url == null) {
                return null;
            }
            try (InputStream in = url.openStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }, classpath);
    }

    /** The text of a file of the application's configuration, or null when it has none of that name. */
    private interface Resources {
        String text(String name) throws IOException;
    }

    private static Map<String, String> read(Resources resources, ClassLoader project) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        String xml = resources.text("META-INF/persistence.xml");
        if (xml != null) {
            settings.putAll(persistenceXml(xml));
        }
        List<Map<String, String>> documents = new ArrayList<>();
        String properties = resources.text("application.properties");
        if (properties != null) {
            for (String document : properties.split("(?m)^[#!]---\\s*$")) {
                Properties p = new Properties();
                try (Reader in = new StringReader(document)) {
                    p.load(in);
                }
                Map<String, String> d = new LinkedHashMap<>();
                p.forEach((k, v) -> d.put(k.toString(), v.toString().trim()));
                documents.add(d);
            }
        }
        for (String name : List.of("application.yml", "application.yaml")) {
            String yaml = resources.text(name);
            if (yaml != null) {
                documents.addAll(yaml(yaml.lines().toList()));
            }
        }
        Map<String, String> spring = application(documents);
        spring.forEach((k, v) -> {
            String key = k.startsWith("spring.jpa.properties.") ? k.substring("spring.jpa.properties.".length())
                    : k.equals("spring.jpa.hibernate.naming.physical-strategy") ? "hibernate.physical_naming_strategy"
                    : k.equals("spring.jpa.hibernate.naming.implicit-strategy") ? "hibernate.implicit_naming_strategy"
                    : null;
            if (key != null && NAMING.contains(key)) {
                settings.put(key, v);
            }
        });
        if (spring.containsKey("countercache.strategy")) {   // the starter's property, which it puts over Hibernate's
            settings.put("countercache.strategy", spring.get("countercache.strategy"));
        }
        if (springBootJpa(project)) {
            settings.putIfAbsent("hibernate.physical_naming_strategy",
                    "org.hibernate.boot.model.naming.CamelCaseToUnderscoresNamingStrategy");
            for (String implicit : List.of("org.springframework.boot.hibernate.SpringImplicitNamingStrategy",
                    "org.springframework.boot.orm.jpa.hibernate.SpringImplicitNamingStrategy")) {
                if (present(implicit, project)) {
                    settings.putIfAbsent("hibernate.implicit_naming_strategy", implicit);
                }
            }
        }
        return settings;
    }

    /**
     * The key of the first setting whose value is a placeholder ({@code ${...}}) that only the running application
     * resolves; null when there is none.
     */
    public static String placeholder(Map<String, ?> settings) {
        return settings.entrySet().stream().filter(e -> String.valueOf(e.getValue()).contains("${"))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }

    private static boolean springBootJpa(ClassLoader project) {
        return present("org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration", project)
                || present("org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration", project);
    }

    private static boolean present(String name, ClassLoader loader) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** The naming properties of the first persistence unit. */
    private static Map<String, String> persistenceXml(String file) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);   // else getElementsByTagNameNS finds nothing, in any namespace or none
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            NodeList units = factory.newDocumentBuilder().parse(new InputSource(new StringReader(file)))
                    .getElementsByTagNameNS("*", "persistence-unit");
            if (units.getLength() > 0) {
                NodeList properties = ((Element) units.item(0)).getElementsByTagNameNS("*", "property");
                for (int i = 0; i < properties.getLength(); i++) {
                    Element p = (Element) properties.item(i);
                    if (NAMING.contains(p.getAttribute("name"))) {
                        settings.put(p.getAttribute("name"), p.getAttribute("value").trim());
                    }
                }
            }
        } catch (javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new IOException("META-INF/persistence.xml is not readable: " + e.getMessage(), e);
        }
        return settings;
    }

    /**
     * What the application runs with: the documents no profile guards, and those of the profiles they activate
     * ({@code spring.config.activate.on-profile} naming one of {@code spring.profiles.active}, else of
     * {@code spring.profiles.default}), in file order. A profile activated only at run time is not known here.
     */
    static Map<String, String> application(List<Map<String, String>> documents) {
        Map<String, String> base = new LinkedHashMap<>();
        documents.stream().filter(d -> !guarded(d)).forEach(base::putAll);
        String active = base.getOrDefault("spring.profiles.active", base.getOrDefault("spring.profiles.default", ""));
        List<String> profiles = List.of(active.split("\\s*,\\s*"));
        Map<String, String> all = new LinkedHashMap<>();
        for (Map<String, String> d : documents) {
            String on = d.getOrDefault(ON_PROFILE, d.get("spring.profiles"));
            if (!guarded(d) || on != null && List.of(on.split("\\s*,\\s*")).stream().anyMatch(profiles::contains)) {
                all.putAll(d);
            }
        }
        return all;
    }

    private static boolean guarded(Map<String, String> document) {
        return document.containsKey(ON_PROFILE) || document.containsKey("spring.profiles");
    }

    /** The documents of a YAML file ({@code ---} between them), each's scalar entries as dotted keys. */
    static List<Map<String, String>> yaml(List<String> lines) {
        List<Map<String, String>> documents = new ArrayList<>();
        List<String> document = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("---")) {
                documents.add(yamlDocument(document));
                document.clear();
            } else {
                document.add(line);
            }
        }
        documents.add(yamlDocument(document));
        return documents;
    }

    /** The scalar entries of a YAML document as dotted keys (enough for Spring's configuration; lists are skipped). */
    private static Map<String, String> yamlDocument(List<String> lines) {
        Map<String, String> flat = new LinkedHashMap<>();
        Deque<int[]> indents = new ArrayDeque<>();   // indentation of each open key
        Deque<String> keys = new ArrayDeque<>();
        for (String raw : lines) {
            String line = raw.replaceAll("\\s+#.*$", "");
            if (line.isBlank() || line.trim().startsWith("#") || line.trim().startsWith("-")) {
                continue;
            }
            int indent = line.length() - line.stripLeading().length();
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            while (!indents.isEmpty() && indents.peek()[0] >= indent) {
                indents.pop();
                keys.pop();
            }
            String key = line.substring(indent, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (value.isEmpty()) {
                indents.push(new int[]{indent});
                keys.push(key);
            } else {
                List<String> path = new ArrayList<>(keys);
                java.util.Collections.reverse(path);
                path.add(key);
                flat.put(String.join(".", path), value.replaceAll("^[\"']|[\"']$", ""));
            }
        }
        return flat;
    }
}
