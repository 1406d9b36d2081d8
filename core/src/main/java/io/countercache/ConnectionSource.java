package io.countercache;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where a {@link RollupWorker} gets its connections: a {@code DataSource} ({@code dataSource::getConnection}) or a
 * framework's own provider, which may want connections handed back through a call of its own.
 */
@FunctionalInterface
public interface ConnectionSource {

    /** A connection the worker holds for one or more rounds. */
    Connection open() throws SQLException;

    /** Gives a connection back; closes it unless the provider says otherwise. */
    default void release(Connection connection) throws SQLException {
        connection.close();
    }
}
