package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** The argument checks and byte arithmetic the EM-BSP collectives share: counts to bytes, buffers to slices. */
final class CollectiveBuffers {
    private CollectiveBuffers() {
    }

    static void checkRoot(EmCommunicator c, int root) {
        if (root < 0 || root >= c.size()) {
            throw new LockstepException(ErrorClass.ROOT, "root " + root + " is outside [0, " + c.size() + ")");
        }
    }

    static long bytes(Datatype type, long count) {
        if (type == null) {
            throw new LockstepException(ErrorClass.TYPE, "datatype is null");
        }
        return type.byteLength(count);
    }

    /** {@code length} bytes of {@code segment} from {@code offset}, checking that it has them. */
    static MemorySegment slice(MemorySegment segment, long offset, long length, String what) {
        if (length == 0) {
            return MemorySegment.ofArray(new byte[0]);
        }
        if (segment == null) {
            throw new LockstepException(ErrorClass.BUFFER, what + " is null for " + length + " bytes");
        }
        if (offset < 0 || offset + length > segment.byteSize()) {
            throw new LockstepException(ErrorClass.BUFFER, what + " of " + segment.byteSize() + " bytes has no room for "
                    + length + " bytes at offset " + offset);
        }
        return segment.asSlice(offset, length);
    }

    /** Per-rank counts (or displacements) in elements of {@code type}, as bytes. */
    static long[] scaled(long[] counts, Datatype type, int n, String what) {
        if (counts == null || counts.length != n) {
            throw new LockstepException(ErrorClass.COUNT, what + " must have one entry per rank (" + n + "), got "
                    + (counts == null ? "null" : counts.length));
        }
        long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = bytes(type, counts[i]);
        }
        return bytes;
    }

    static long[] uniform(long bytes, int n) {
        long[] counts = new long[n];
        Arrays.fill(counts, bytes);
        return counts;
    }

    static long[] prefix(long bytes, int n) {
        long[] displacements = new long[n];
        for (int i = 0; i < n; i++) {
            displacements[i] = i * bytes;
        }
        return displacements;
    }

    static long max(long[] values) {
        long m = 0;
        for (long x : values) {
            m = Math.max(m, x);
        }
        return m;
    }

    /** The end of the furthest of the blocks {@code counts} at {@code displacements}. */
    static long extent(long[] counts, long[] displacements) {
        long extent = 0;
        for (int i = 0; i < counts.length; i++) {
            extent = Math.max(extent, displacements[i] + counts[i]);
        }
        return extent;
    }

    /**
     * An Allgather(v)'s own block: in place in {@code all}, or the send buffer, which is also copied to its
     * place in {@code all}.
     */
    static MemorySegment ownBlock(String operation, MemorySegment send, long sendBytes, MemorySegment all, long[] counts,
                                  long[] displs, int rank) {
        if (send == Communicator.IN_PLACE) {
            return all.asSlice(displs[rank], counts[rank]);
        }
        checkLength(operation, counts[rank], sendBytes);
        MemorySegment mine = slice(send, 0, sendBytes, operation + " send buffer");
        MemorySegment.copy(mine, 0, all, displs[rank], sendBytes);
        return mine;
    }

    static void checkLength(String operation, long expected, long given) {
        if (expected != given) {
            throw new LockstepException(ErrorClass.COUNT, operation + ": this rank's " + given
                    + " bytes do not match the " + expected + " bytes the other side gives");
        }
    }
}
