package io.countercache.spi;

/** The optional dependencies on the class path, checked once without loading any of their classes, for every module. */
public final class OptionalDependencies {

    /** Whether Micrometer is on the class path: meters are then registered. */
    public static final boolean MICROMETER = present("io.micrometer.core.instrument.Metrics");

    private OptionalDependencies() {
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, OptionalDependencies.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
