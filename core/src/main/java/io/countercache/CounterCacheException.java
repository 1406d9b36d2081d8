package io.countercache;

/**
 * The one exception of countercache: a counter that cannot be installed, validated or maintained. Its message names
 * the counter ({@code Entity.field}), what is wrong and how to fix it; a cause from JDBC keeps its SQLState.
 */
public class CounterCacheException extends RuntimeException {

    public CounterCacheException(String message) {
        super(message);
    }

    public CounterCacheException(String message, Throwable cause) {
        super(message, cause);
    }
}
