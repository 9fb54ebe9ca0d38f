package org.lockstep.embsp.net;

import java.lang.foreign.MemorySegment;

/**
 * One frame between real processors ({@link FrameLayout}). A received frame's payload is valid
 * only while its handler runs.
 */
public record Frame(FrameKind kind, int from, long group, long call, long a, long b, long c, MemorySegment payload) {
    static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** A frame of {@code kind} without payload. */
    public static Frame of(FrameKind kind, long group, long call, long a, long b, long c) {
        return new Frame(kind, -1, group, call, a, b, c, EMPTY);
    }

    /** This frame carrying {@code bytes}. */
    public Frame with(MemorySegment bytes) {
        return new Frame(kind, from, group, call, a, b, c, bytes);
    }

    public long bytes() {
        return FrameLayout.HEADER_BYTES + payload.byteSize();
    }
}
