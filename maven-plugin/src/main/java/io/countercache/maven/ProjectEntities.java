package io.countercache.maven;

import io.countercache.CounterCache;
import io.countercache.CounterLimit;
import jakarta.persistence.Embeddable;
import jakarta.persistence.Entity;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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

    /**
     * The entities among these that a model of their counters needs: those that declare a counter or a limit, the
     * sources they count, and every entity those reach through a field (associations, collections, embeddables),
     * inherit from or pass on to. An entity the counters never reach is left out, so that a mapping Hibernate would refuse in some
     * unrelated corner of the project does not fail the goals. With no counter declared at all, all of them.
     */
    static List<Class<?>> needed(List<Class<?>> entities) {
        Set<Class<?>> known = Set.copyOf(entities);
        Set<Class<?>> needed = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (Class<?> k : entities) {
            if (declares(k)) {
                todo.add(k);
            }
        }
        if (todo.isEmpty()) {
            return entities;
        }
        Set<Class<?>> walked = new LinkedHashSet<>();
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            if (!walked.add(k)) {
                continue;
            }
            if (known.contains(k)) {
                needed.add(k);
                entities.stream().filter(e -> e != k && k.isAssignableFrom(e)).forEach(todo::add);   // its subclasses
            }
            for (Class<?> c = k; c != null && c != Object.class; c = c.getSuperclass()) {
                todo.add(c);
                for (Field f : c.getDeclaredFields()) {
                    CounterCache counter = f.getAnnotation(CounterCache.class);
                    if (counter != null) {
                        todo.add(counter.source());
                    }
                    reached(f.getGenericType(), known, todo);
                }
            }
        }
        return entities.stream().filter(needed::contains).toList();
    }

    private static boolean declares(Class<?> k) {
        for (Class<?> c = k; c != null && c != Object.class; c = c.getSuperclass()) {
            if (c.isAnnotationPresent(CounterLimit.class) || c.isAnnotationPresent(CounterLimit.List.class)) {
                return true;
            }
            for (Field f : c.getDeclaredFields()) {
                if (f.isAnnotationPresent(CounterCache.class)    // one inside an embeddable is refused with the fix
                        || f.getType().isAnnotationPresent(Embeddable.class) && f.getType() != k && declares(f.getType())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The entities and embeddables a field's type names, its type arguments ({@code List<Pet>}) included. */
    private static void reached(Type type, Set<Class<?>> known, Deque<Class<?>> todo) {
        if (type instanceof Class<?> k) {
            Class<?> element = k.isArray() ? k.getComponentType() : k;
            if (known.contains(element) || element.isAnnotationPresent(Embeddable.class)) {
                todo.add(element);
            }
        } else if (type instanceof ParameterizedType p) {
            for (Type argument : p.getActualTypeArguments()) {
                reached(argument, known, todo);
            }
        } else if (type instanceof GenericArrayType a) {
            reached(a.getGenericComponentType(), known, todo);
        }
    }
}
