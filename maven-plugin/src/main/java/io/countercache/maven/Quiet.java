package io.countercache.maven;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Keeps Hibernate's boot chatter (version banners, INFO lines) out of the build's output: only warnings show. */
final class Quiet {

    private static final Logger HIBERNATE = Logger.getLogger("org.hibernate");

    private Quiet() {
    }

    static void hibernate() {
        if (System.getProperty("org.jboss.logging.provider") == null) {
            System.setProperty("org.jboss.logging.provider", "jdk");
        }
        HIBERNATE.setLevel(Level.WARNING);
    }
}
