package io.countercache.maven;

import jakarta.persistence.Entity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The {@code @Entity} classes among a project's compiled classes. */
final class ProjectEntities {

    private ProjectEntities() {
    }

    static List<Class<?>> find(Path classes, ClassLoader loader, List<String> packages) throws IOException {
        if (!Files.isDirectory(classes)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> classes.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "."))
                    .map(f -> f.substring(0, f.length() - ".class".length()))
                    .filter(name -> !name.endsWith("module-info") && !name.endsWith("package-info"))
                    .filter(name -> packages.isEmpty() || packages.stream().anyMatch(p -> name.startsWith(p + ".")))
                    .<Class<?>>map(name -> load(name, loader))
                    .filter(k -> k != null && k.isAnnotationPresent(Entity.class))
                    .sorted(Comparator.comparing(Class::getName))
                    .toList();
        }
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;   // a class that needs what is not on the compile classpath cannot be an entity it maps
        }
    }
}
