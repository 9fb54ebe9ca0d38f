package org.lockstep.embsp.sim;

import org.lockstep.embsp.EmBspOptions;

/**
 * How virtual processors become threads (seed 003 chapter 3): platform threads (PEMS2's POSIX
 * threads), virtual threads (so that v can reach tens of thousands), or PEMS1's one-at-a-time
 * user-space threads, here virtual threads of which the {@link Scheduler} lets exactly one run,
 * always choosing the next by VP id, so that a run is reproducible.
 */
public interface ThreadDriver {
    /** Starts {@code task} on a new thread called {@code name}. */
    Thread start(String name, Runnable task);

    /** Whether only one VP may run at a time. */
    boolean exclusive();

    /** Short name: {@code platform}, {@code virtual} or {@code sequential}. */
    String name();

    /** The driver of {@code mode}. */
    static ThreadDriver of(EmBspOptions.ThreadMode mode) {
        return switch (mode) {
            case PLATFORM -> new ThreadDriver() {
                @Override
                public Thread start(String name, Runnable task) {
                    return Thread.ofPlatform().name(name).start(task);
                }

                @Override
                public boolean exclusive() {
                    return false;
                }

                @Override
                public String name() {
                    return "platform";
                }
            };
            case VIRTUAL, SEQUENTIAL -> new ThreadDriver() {
                @Override
                public Thread start(String name, Runnable task) {
                    return Thread.ofVirtual().name(name).start(task);
                }

                @Override
                public boolean exclusive() {
                    return mode == EmBspOptions.ThreadMode.SEQUENTIAL;
                }

                @Override
                public String name() {
                    return mode == EmBspOptions.ThreadMode.SEQUENTIAL ? "sequential" : "virtual";
                }
            };
        };
    }
}
