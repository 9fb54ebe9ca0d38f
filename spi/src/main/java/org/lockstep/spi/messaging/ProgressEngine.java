package org.lockstep.spi.messaging;

/**
 * The part of a rank's transport that moves messages: requests call it while they are tested or
 * waited on. Implementations poll their device or network once per call and return promptly.
 */
public interface ProgressEngine {
    /**
     * Makes one round of progress: drains arrivals, places pending sends, completes requests, and
     * fails the requests that involve a peer found dead.
     *
     * @return whether anything changed (a hint for back-off)
     */
    boolean progress();

    /** The back-off of a wait on this engine's requests (by default {@link IdleStrategy.Policy#CAUTIOUS}). */
    default IdleStrategy newIdleStrategy() {
        return new IdleStrategy();
    }
}
