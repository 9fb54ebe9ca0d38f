package org.lockstep.embsp.sim;

/** What a virtual processor's thread is doing, as the {@link Scheduler} sees it. */
public enum RunState {
    /** Created, not yet asked for its partition. */
    STARTING,
    /** Wants to run: waits for its partition (and, with the sequential driver, the CPU token). */
    READY,
    /** Runs: holds its partition (and the token). */
    RUNNING,
    /** Waits for a condition, with or without its partition. */
    BLOCKED,
    /** Woken from BLOCKED: re-checks its condition. */
    WOKEN,
    /** Its program has ended. */
    DONE
}
