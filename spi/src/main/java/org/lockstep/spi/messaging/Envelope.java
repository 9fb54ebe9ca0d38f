package org.lockstep.spi.messaging;

/**
 * The matching information of a message: sender rank, tag and communicator context, as MPI
 * matches them (MPI 4.1 §3.5).
 */
public record Envelope(int source, int tag, int context) {
    /** Whether a receive for {@code (source, tag, context)}, wildcards allowed, matches this envelope. */
    public boolean matches(int wantedSource, int wantedTag, int wantedContext) {
        return context == wantedContext
                && (wantedSource == MatchingEngine.ANY_SOURCE || wantedSource == source)
                && (wantedTag == MatchingEngine.ANY_TAG || wantedTag == tag);
    }
}
