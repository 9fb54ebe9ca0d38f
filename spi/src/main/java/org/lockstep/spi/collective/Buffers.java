package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** Scratch memory of the algorithms: heap memory, 8-byte aligned, freed by the garbage collector. */
final class Buffers {
    /** A zero-length segment: the payload of a pure synchronisation message. */
    static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private Buffers() {
    }

    /** {@code bytes} bytes of zeroed scratch memory. */
    static MemorySegment scratch(long bytes) {
        if (bytes == 0) {
            return EMPTY;
        }
        long words = (bytes + Long.BYTES - 1) / Long.BYTES;
        if (words > Integer.MAX_VALUE - 8) {
            throw new LockstepException(ErrorClass.NO_MEM, "a collective needs " + bytes + " bytes of scratch memory,"
                    + " more than one heap array holds");
        }
        try {
            return MemorySegment.ofArray(new long[(int) words]).asSlice(0, bytes);
        } catch (OutOfMemoryError e) {
            throw new LockstepException(ErrorClass.NO_MEM, "a collective could not get " + bytes + " bytes of scratch memory", e);
        }
    }

    /** {@code bytes} bytes at byte offset {@code offset} of {@code segment}. */
    static MemorySegment slice(MemorySegment segment, long offset, long bytes) {
        return bytes == 0 ? EMPTY : segment.asSlice(offset, bytes);
    }

    /** Copies {@code source} over {@code target} (same length); overlapping segments copy as memmove does. */
    static void copy(MemorySegment source, MemorySegment target) {
        if (source.byteSize() != target.byteSize()) {
            throw new LockstepException(ErrorClass.INTERN, "copy of " + source.byteSize() + " bytes into " + target.byteSize());
        }
        if (source.byteSize() > 0) {
            MemorySegment.copy(source, 0, target, 0, source.byteSize());
        }
    }
}
