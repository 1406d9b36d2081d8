package io.countercache.hibernate.internal;

import io.countercache.ConnectionSource;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;

import java.sql.Connection;
import java.sql.SQLException;

/** Hibernate's own connections for the in-process worker and the boot check, handed back the way Hibernate wants. */
record HibernateConnections(ConnectionProvider provider) implements ConnectionSource {

    @Override
    public Connection open() throws SQLException {
        return provider.getConnection();
    }

    /** Ends whatever transaction the connection is in, so it goes back to the pool clean. */
    @Override
    public void release(Connection connection) throws SQLException {
        try {
            if (!connection.isClosed() && !connection.getAutoCommit()) {
                connection.rollback();
            }
        } catch (SQLException e) {
            // the connection is broken; the provider decides what to do with it
        } finally {
            provider.closeConnection(connection);
        }
    }
}
