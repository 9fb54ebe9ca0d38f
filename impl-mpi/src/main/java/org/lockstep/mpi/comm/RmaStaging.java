package org.lockstep.mpi.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Native copies of the heap buffers of one-sided calls. The library reads an origin buffer and
 * writes a get's buffer at any time until the call's epoch completes at this origin (a fence,
 * complete, unlock or flush), and it cannot see the Java heap, which the collector moves: an
 * origin's data is copied into native memory kept until then, and a get lands in native memory
 * copied back to the heap then. Native buffers go to the library as they are.
 */
final class RmaStaging {
    /** Completes every target's accesses (fence, complete, flushAll, unlockAll). */
    static final int ALL_TARGETS = -1;

    /** A native copy for an access to {@code target}, and the heap buffer it is copied back to (null for an origin's data). */
    private record Staged(int target, MemorySegment copy, MemorySegment backTo) {
    }

    private final List<Staged> pending = new ArrayList<>();

    /** The buffer the library reads for an access to {@code target}. */
    MemorySegment source(int target, MemorySegment data) {
        if (data.isNative()) {
            return data;
        }
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(data.byteSize(), 1), 8).asSlice(0, data.byteSize());
        MemorySegment.copy(data, 0, copy, 0, data.byteSize());
        pending.add(new Staged(target, copy, null));
        return copy;
    }

    /** The buffer the library writes for an access to {@code target}; a heap {@code destination} gets it at completion. */
    MemorySegment destination(int target, MemorySegment destination) {
        if (destination.isNative()) {
            return destination;
        }
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(destination.byteSize(), 1), 8).asSlice(0, destination.byteSize());
        pending.add(new Staged(target, copy, destination));
        return copy;
    }

    /** The accesses to {@code target} ({@link #ALL_TARGETS}: to every rank) are complete at this origin. */
    void completed(int target) {
        for (Iterator<Staged> it = pending.iterator(); it.hasNext();) {
            Staged s = it.next();
            if (target == ALL_TARGETS || s.target() == target) {
                if (s.backTo() != null) {
                    MemorySegment.copy(s.copy(), 0, s.backTo(), 0, s.backTo().byteSize());
                }
                it.remove(); // the copy is the collector's once nothing refers to it
            }
        }
    }
}
