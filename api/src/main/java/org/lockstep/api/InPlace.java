package org.lockstep.api;

import java.lang.foreign.MemorySegment;

/** Holds the one {@link Communicator#IN_PLACE} segment. */
final class InPlace {
    /** A zero-length segment of its own, so that identity comparison tells it from any buffer. */
    static final MemorySegment SEGMENT = MemorySegment.ofArray(new byte[0]).asReadOnly();

    private InPlace() {
    }
}
