package io.countercache.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for something a background thread does. The deadline only guards against a hang; it measures nothing. */
public final class Await {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private Await() {
    }

    /** Polls the condition every 10 ms until it holds; fails naming {@code what} after 60 seconds. */
    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }
}
