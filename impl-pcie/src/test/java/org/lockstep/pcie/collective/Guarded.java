package org.lockstep.pcie.collective;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A buffer with guard bytes on both sides and a recognisable fill, to prove that a collective
 * writes exactly what it must at a rank: nothing before or after, and nothing in the gaps of a
 * v-variant's layout or in a buffer that is not significant at this rank.
 */
final class Guarded {
    static final int GUARD_BYTES = 32;
    static final byte GUARD = (byte) 0xA5;
    static final byte UNWRITTEN = (byte) 0x5C;

    private final MemorySegment whole;
    private final MemorySegment body;

    private Guarded(long length) {
        whole = MemorySegment.ofArray(new byte[Math.toIntExact(length + 2 * GUARD_BYTES)]);
        whole.asSlice(0, GUARD_BYTES).fill(GUARD);
        whole.asSlice(GUARD_BYTES + length, GUARD_BYTES).fill(GUARD);
        body = whole.asSlice(GUARD_BYTES, length);
        body.fill(UNWRITTEN);
    }

    static Guarded of(long length) {
        return new Guarded(length);
    }

    /** The buffer to pass to the collective. */
    MemorySegment body() {
        return body;
    }

    /** Fails if a guard byte changed. */
    void assertGuards(String what) {
        for (long i = 0; i < whole.byteSize(); i++) {
            boolean guard = i < GUARD_BYTES || i >= GUARD_BYTES + body.byteSize();
            if (guard && whole.get(ValueLayout.JAVA_BYTE, i) != GUARD) {
                fail(what + ": guard byte " + (i < GUARD_BYTES ? i - GUARD_BYTES : i - GUARD_BYTES - body.byteSize())
                        + (i < GUARD_BYTES ? " before" : " after") + " the buffer was overwritten");
            }
        }
    }

    /** Fails unless body bytes [from, to) still hold the fill. */
    void assertUnwritten(long from, long to, String what) {
        for (long i = from; i < to; i++) {
            if (body.get(ValueLayout.JAVA_BYTE, i) != UNWRITTEN) {
                fail(what + ": byte " + i + " should not have been written");
            }
        }
    }

    /** Both: the guards and the whole body are untouched. */
    void assertUntouched(String what) {
        assertGuards(what);
        assertUnwritten(0, body.byteSize(), what);
    }
}
