package org.lockstep.conformance.run;

/**
 * A message no part of the rank's body received, found by the end-of-run exchange: a duplicate,
 * or a message sent to the wrong place.
 *
 * @param rank   the rank it was addressed to
 * @param source its sender
 * @param tag    its tag
 * @param bytes  its length
 */
public record Leftover(int rank, int source, int tag, long bytes) {
    @Override
    public String toString() {
        return "rank " + rank + " still had a message from rank " + source + " with tag " + tag + " (" + bytes + " bytes)";
    }
}
