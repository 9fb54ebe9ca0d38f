package org.lockstep.api;

import java.util.concurrent.locks.LockSupport;

/** Spin, then yield, then park: the back-off of the API's own polling loops. */
final class Backoff {
    private int rounds;

    void idle() {
        rounds++;
        if (rounds < 100) {
            Thread.onSpinWait();
        } else if (rounds < 200) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(50_000);
        }
    }
}
