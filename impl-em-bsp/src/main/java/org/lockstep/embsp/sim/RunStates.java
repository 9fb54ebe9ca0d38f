package org.lockstep.embsp.sim;

/**
 * The {@link RunState} of each VP as the {@link Scheduler} sees it, and the counts it decides by:
 * VPs that are active (not waiting), live (program not ended) and unsettled. Guarded by the
 * scheduler's lock.
 */
final class RunStates {
    /** VPs neither BLOCKED nor DONE: when none is left and some live, nothing can wake them. */
    int active;
    /** VPs whose program has not ended. */
    int live;
    /** VPs that are STARTING or WOKEN: the sequential driver decides only when this is 0, so its choices never depend on timing. */
    int unsettled;

    /** {@code count} VPs start: each counted as active until it first waits. */
    void register(int count) {
        active = count;
        live = count;
        unsettled = count;
    }

    /** Changes {@code vp}'s state, counting the VPs that are not settled yet. */
    void set(Vp vp, RunState next) {
        boolean was = vp.state == RunState.STARTING || vp.state == RunState.WOKEN;
        boolean is = next == RunState.STARTING || next == RunState.WOKEN;
        unsettled += (is ? 1 : 0) - (was ? 1 : 0);
        vp.state = next;
    }
}
