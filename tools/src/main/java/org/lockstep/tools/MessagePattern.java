package org.lockstep.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The content of every message of the example job, a function of (sender, receiver, size) only, so
 * that the receiver can check each byte without having seen the sender's buffer.
 *
 * <p>The bytes are a SplitMix64 stream: word {@code j} of a message is {@code mix(seed + (j + 1) * γ)},
 * laid out little-endian, and the last partial word is cut short. Neighbouring senders, receivers
 * and sizes get unrelated streams, so a message delivered to the wrong rank, or a stale or shifted
 * payload, fails the check.
 */
final class MessagePattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int WORD_BYTES = Long.BYTES;
    /** SplitMix64's increment (2^64 / golden ratio). */
    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    private MessagePattern() {
    }

    /** Writes the pattern of message (source → destination, size bytes) into the first size bytes of {@code buffer}. */
    static void fill(MemorySegment buffer, int source, int destination, long size) {
        long seed = seed(source, destination, size);
        long words = size / WORD_BYTES;
        for (long j = 0; j < words; j++) {
            buffer.set(WORD, j * WORD_BYTES, word(seed, j));
        }
        for (long i = words * WORD_BYTES; i < size; i++) {
            buffer.set(ValueLayout.JAVA_BYTE, i, expectedByte(seed, i));
        }
    }

    /** Offset of the first of {@code size} bytes that differs from the pattern, or -1 if all match. */
    static long firstMismatch(MemorySegment buffer, int source, int destination, long size) {
        long seed = seed(source, destination, size);
        long words = size / WORD_BYTES;
        for (long j = 0; j < words; j++) {
            long offset = j * WORD_BYTES;
            if (buffer.get(WORD, offset) != word(seed, j)) {
                return firstMismatchingByte(buffer, seed, offset, offset + WORD_BYTES);
            }
        }
        return firstMismatchingByte(buffer, seed, words * WORD_BYTES, size);
    }

    /** The byte the pattern of message (source → destination, size bytes) has at {@code offset}. */
    static byte expectedByte(int source, int destination, long size, long offset) {
        return expectedByte(seed(source, destination, size), offset);
    }

    /** CRC-32C of the first {@code size} bytes of {@code buffer}, as printed next to each message. */
    static int checksum(MemorySegment buffer, long size) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.asSlice(0, size).asByteBuffer());
        return (int) crc.getValue();
    }

    private static long firstMismatchingByte(MemorySegment buffer, long seed, long from, long to) {
        for (long i = from; i < to; i++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, i) != expectedByte(seed, i)) {
                return i;
            }
        }
        return -1;
    }

    private static byte expectedByte(long seed, long offset) {
        return (byte) (word(seed, offset / WORD_BYTES) >>> (Byte.SIZE * (offset % WORD_BYTES)));
    }

    private static long seed(int source, int destination, long size) {
        return mix(mix(mix(source) ^ destination) ^ size);
    }

    private static long word(long seed, long index) {
        return mix(seed + (index + 1) * GAMMA);
    }

    /** SplitMix64's finaliser (Steele, Lea, Flood 2014). */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
