package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** Slices and copies of the algorithms' buffers (scratch memory comes from {@link Schedule#scratch}). */
final class Buffers {
    /** A zero-length segment: the payload of a pure synchronisation message. */
    static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private Buffers() {
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
