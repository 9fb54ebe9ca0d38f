package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;

/**
 * Where message bytes are: {@code length} bytes at {@code offset} of a VP's context (which may be
 * swapped out: only the {@link DataMover} reaches it), or an external segment (Java heap or other
 * memory that outlives swaps, always reachable).
 */
public record Location(Vp owner, long offset, MemorySegment external, long length) {
    /** The location of {@code segment} as {@code vp} passed it. */
    public static Location of(Vp vp, MemorySegment segment) {
        Context c = vp.context();
        if (c.contains(segment)) {
            return new Location(vp, c.offsetOf(segment), null, segment.byteSize());
        }
        return new Location(null, 0, segment, segment.byteSize());
    }

    /** {@code length} bytes from {@code start} bytes into this location. */
    public Location slice(long start, long sliceLength) {
        if (start < 0 || sliceLength < 0 || start + sliceLength > length) {
            throw new IndexOutOfBoundsException("slice [" + start + ", " + (start + sliceLength) + ") of " + length + " bytes");
        }
        return external != null ? new Location(null, 0, external.asSlice(start, sliceLength), sliceLength)
                : new Location(owner, offset + start, null, sliceLength);
    }

    public boolean isExternal() {
        return external != null;
    }
}
