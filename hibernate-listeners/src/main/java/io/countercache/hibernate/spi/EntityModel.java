package io.countercache.hibernate.spi;

import io.countercache.hibernate.internal.CounterModel;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.LimitDefinition;
import org.hibernate.boot.Metadata;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The counters an entity model declares, resolved to physical names exactly as Hibernate maps them: what a tool that
 * generates the changelog (the CLI, a build plugin) hands to {@link io.countercache.spi.Installation}. Every bad
 * declaration is reported at once, each naming {@code Entity.field} and the fix.
 */
public final class EntityModel {

    private EntityModel() {
    }

    /**
     * Builds the entity model of these classes as Hibernate builds it at boot (PostgreSQL dialect, no database), with
     * these Hibernate settings (naming strategies, default schema), and returns its counters sorted by name.
     */
    public static List<CounterDefinition> counters(Collection<Class<?>> entities, Map<String, Object> settings) {
        return CounterModel.definitions(entities, settings);
    }

    /** The limit counters ({@code @CounterLimit}) on these classes, sorted by name. */
    public static List<LimitDefinition> limits(Collection<Class<?>> entities) {
        return CounterModel.limits(entities);
    }

    /**
     * The name a changelog of these entities gets when the user gives none: the longest package that holds them all
     * ({@code com.acme.blog}), so that two modules with entities of their own get changelogs of their own names, each
     * pruning only what it installed; {@code default} for classes in no common package.
     */
    public static String changelogName(Collection<Class<?>> entities) {
        String common = null;
        for (Class<?> k : entities) {
            String p = k.getPackageName();
            if (common == null) {
                common = p;
            }
            while (!common.isEmpty() && !(p.equals(common) || p.startsWith(common + "."))) {
                int dot = common.lastIndexOf('.');
                common = dot < 0 ? "" : common.substring(0, dot);
            }
        }
        return common == null || common.isEmpty() ? io.countercache.spi.Installation.DEFAULT_CHANGELOG : common;
    }

    /** The counters of a boot metamodel the caller already has, sorted by name. */
    public static List<CounterDefinition> counters(Metadata metadata) {
        return CounterModel.definitions(metadata);
    }
}
