package org.lockstep.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Message payloads whose every byte depends on a message key and the byte's position, so that a
 * misdelivered, shifted, mixed or truncated payload shows at the first wrong byte (the idea of IMB's
 * check mode, which fills buffers with a known pattern and compares what arrives).
 */
public final class PayloadPattern {
    private static final long KEY_MIX = 0x9E3779B97F4A7C15L;
    private static final long POSITION_MIX = 0xC2B2AE3D27D4EB4FL;
    private static final int FINAL_SHIFT_A = 29;
    private static final int FINAL_SHIFT_B = 47;

    private PayloadPattern() {
    }

    /** The byte at {@code position} of the payload of message {@code key}. */
    public static byte at(long key, long position) {
        long h = (key + 1) * KEY_MIX ^ (position + 1) * POSITION_MIX;
        h ^= h >>> FINAL_SHIFT_A;
        h *= KEY_MIX;
        return (byte) (h ^ (h >>> FINAL_SHIFT_B));
    }

    /** Writes the first {@code length} bytes of message {@code key}'s payload into {@code target} at 0. */
    public static void fill(MemorySegment target, long key, long length) {
        for (long i = 0; i < length; i++) {
            target.set(ValueLayout.JAVA_BYTE, i, at(key, i));
        }
    }

    /** A fresh heap segment holding {@code length} bytes of message {@code key}'s payload. */
    public static MemorySegment of(long key, int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        fill(s, key, length);
        return s;
    }

    /** The first position in {@code [0, length)} where {@code s} differs from message {@code key}'s payload, or -1. */
    public static long firstMismatch(MemorySegment s, long key, long length) {
        for (long i = 0; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != at(key, i)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code s} holds the first {@code length} bytes of message {@code key}'s payload. */
    public static boolean matches(MemorySegment s, long key, long length) {
        return firstMismatch(s, key, length) < 0;
    }
}
