package io.countercache.liquibase;

import io.countercache.hibernate.CounterModel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command line: writes the changelog for the counters of some entity classes.
 *
 * <pre>
 * java -cp app-classes:deps io.countercache.liquibase.ChangelogGenerator \
 *      --out src/main/resources/db/countercache.changelog.sql \
 *      [--setting hibernate.physical_naming_strategy=...] com.acme.Article com.acme.Comment ...
 * </pre>
 *
 * <p>The entity model is built exactly as Hibernate builds it at boot (PostgreSQL dialect, no database needed), so
 * pass the same naming settings the application uses.
 */
public final class ChangelogGenerator {

    private ChangelogGenerator() {
    }

    public static void main(String[] args) throws IOException, ClassNotFoundException {
        Path out = null;
        Map<String, Object> settings = new LinkedHashMap<>();
        List<Class<?>> entities = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[++i]);
                case "--setting" -> {
                    String[] kv = args[++i].split("=", 2);
                    settings.put(kv[0], kv.length > 1 ? kv[1] : "");
                }
                default -> entities.add(Class.forName(args[i]));
            }
        }
        if (entities.isEmpty()) {
            System.err.println("usage: ChangelogGenerator [--out FILE] [--setting key=value]... EntityClass...");
            System.exit(2);
        }
        String text = ChangelogWriter.render(CounterModel.definitions(entities, settings), null);
        if (out == null) {
            System.out.print(text);
        } else {
            Files.writeString(out, text, StandardCharsets.UTF_8);
            System.err.println("wrote " + out);
        }
    }
}
