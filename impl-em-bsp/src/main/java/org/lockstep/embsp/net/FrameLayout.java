package org.lockstep.embsp.net;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The layout of one frame between real processors: a fixed header of seven words, then the
 * payload (message bytes, a reduction's accumulator, a report). Every frame is one message of
 * the network provider, so the network's own ordering (non-overtaking per pair) orders frames.
 *
 * <pre>
 *  0       4       8               16              24              32              40              48
 *  +-------+-------+---------------+---------------+---------------+---------------+---------------+------------
 *  | kind  | from  | group key     | call number   | a             | b             | c             | payload ...
 *  +-------+-------+---------------+---------------+---------------+---------------+---------------+------------
 *    kind: {@link FrameKind} ordinal; from: sending real processor; group key: the communicator's
 *    group; call number: the collective call on it; a, b, c: the kind's own arguments
 * </pre>
 */
public final class FrameLayout {
    public static final long KIND_OFFSET = 0;
    public static final long FROM_OFFSET = 4;
    public static final long GROUP_OFFSET = 8;
    public static final long CALL_OFFSET = 16;
    public static final long A_OFFSET = 24;
    public static final long B_OFFSET = 32;
    public static final long C_OFFSET = 40;
    public static final long HEADER_BYTES = 48;

    private FrameLayout() {
    }

    static void writeHeader(MemorySegment buffer, Frame frame) {
        buffer.set(ValueLayout.JAVA_INT_UNALIGNED, KIND_OFFSET, frame.kind().ordinal());
        buffer.set(ValueLayout.JAVA_INT_UNALIGNED, FROM_OFFSET, frame.from());
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, GROUP_OFFSET, frame.group());
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, CALL_OFFSET, frame.call());
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, A_OFFSET, frame.a());
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, B_OFFSET, frame.b());
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, C_OFFSET, frame.c());
    }

    /** The frame in the first {@code length} bytes of {@code buffer}; its payload is a slice of the buffer. */
    static Frame read(MemorySegment buffer, long length) {
        if (length < HEADER_BYTES) {
            throw new IllegalStateException("a frame of " + length + " bytes is shorter than its " + HEADER_BYTES + "-byte header");
        }
        int kind = buffer.get(ValueLayout.JAVA_INT_UNALIGNED, KIND_OFFSET);
        FrameKind[] kinds = FrameKind.values();
        if (kind < 0 || kind >= kinds.length) {
            throw new IllegalStateException("frame kind " + kind + " is unknown");
        }
        return new Frame(kinds[kind], buffer.get(ValueLayout.JAVA_INT_UNALIGNED, FROM_OFFSET),
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, GROUP_OFFSET), buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, CALL_OFFSET),
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, A_OFFSET), buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, B_OFFSET),
                buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, C_OFFSET), buffer.asSlice(HEADER_BYTES, length - HEADER_BYTES));
    }
}
