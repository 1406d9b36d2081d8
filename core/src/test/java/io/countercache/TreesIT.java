package io.countercache;

import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import io.countercache.spi.TableName;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table that counts its own rows: each node of a tree counts its visible children ({@code parent_id} points into the
 * same table), so the rollup's (or a direct counter's) update of a node fires the capture of the same table, which
 * finds nothing counted changed. Inserts, reparents, flips, a delete that cascades to the children, a parent inserted
 * with its children, a node that is its own parent and a change of a node's key, in every strategy, each ending with
 * every node's count equal to its recount.
 */
class TreesIT {

    private static final TableName NODE = new TableName("public", "node");
    private static final CounterDefinition NODE_CHILDREN = new CounterDefinition("Node.children", NODE, "id",
            KeyType.BIGINT, "children", "bigint", NODE, "parent_id", "NOT hidden", null);

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"QUEUE", "UNLOGGED", "DIRECT", "SLOTTED"})
    void aTableCountsItsOwnRows(Strategy strategy) throws Exception {
        TestDatabase db = TestPostgres.newDatabase(TreesIT.class);
        db.execute("CREATE TABLE node (id bigint PRIMARY KEY, parent_id bigint REFERENCES node ON DELETE CASCADE,"
                + " hidden boolean NOT NULL DEFAULT false, children bigint NOT NULL DEFAULT 0)");
        BlogSchema.install(db, List.of(NODE_CHILDREN.withStrategy(strategy, 4)));
        String mismatches = "SELECT n.id, n.children, r.n FROM node n, LATERAL (SELECT count(*) AS n FROM node c"
                + " WHERE c.parent_id = n.id AND NOT c.hidden) r WHERE n.children <> r.n";
        db.execute("INSERT INTO node (id) VALUES (1); INSERT INTO node (id, parent_id) VALUES (2, 1), (3, 1);"
                + " INSERT INTO node (id, parent_id) SELECT g, 1 + g % 3 FROM generate_series(4, 100) g");
        exact(db, mismatches);
        db.execute("UPDATE node SET parent_id = 2 WHERE id % 5 = 0 AND id > 3;"
                + " UPDATE node SET hidden = true WHERE id % 7 = 0");
        exact(db, mismatches);
        db.execute("DELETE FROM node WHERE id = 3");   // cascades to its children
        exact(db, mismatches);
        // a parent and its children in one statement, and a node that is its own parent
        db.execute("INSERT INTO node (id, parent_id) VALUES (300, NULL), (301, 300), (302, 300), (303, 303)");
        exact(db, mismatches);
        db.execute("UPDATE node SET parent_id = 303 WHERE id = 302; DELETE FROM node WHERE id = 303");
        exact(db, mismatches);
        db.execute("UPDATE node SET id = id + 1000 WHERE id = 4");   // a leaf: its parent's count stays
        exact(db, mismatches);
    }

    private static void exact(TestDatabase db, String mismatches) {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until a round finds nothing
        }
        assertThat(db.queryRows(mismatches)).isEmpty();
        assertThat(db.queryRows("SELECT counter_id, target_id, delta, error FROM countercache.dead_letter")).isEmpty();
    }
}
