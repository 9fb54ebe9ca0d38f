package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The checksum of a checkpoint slot ({@link org.lockstep.pcie.layout.CheckpointSlotDescriptor}):
 * epoch, length and body, 8 bytes at a time. In pieces, so that a commit folds the transport
 * section and the registered state where each lies, without copying the state.
 */
final class CheckpointChecksum {
    private CheckpointChecksum() {
    }

    /** The checksum of a body of {@code length} bytes as read back. */
    static long of(long epoch, MemorySegment body, long length) {
        long words = length / Long.BYTES;
        return end(foldTail(foldWords(seed(epoch, length), body, 0, words), body, words * Long.BYTES, length));
    }

    /** The checksum of a body of {@code bodyLength} bytes: {@code transportWords} words of {@code transport}, then {@code state}. */
    static long of(long epoch, long bodyLength, MemorySegment transport, long transportWords, MemorySegment state) {
        long stateWords = state.byteSize() / Long.BYTES;
        long h = foldWords(foldWords(seed(epoch, bodyLength), transport, 0, transportWords), state, 0, stateWords);
        return end(foldTail(h, state, stateWords * Long.BYTES, state.byteSize()));
    }

    private static long seed(long epoch, long length) {
        return 0x6A09E667F3BCC909L ^ epoch * 0x9E3779B97F4A7C15L ^ length;
    }

    private static long foldWords(long h, MemorySegment segment, long from, long words) {
        for (long i = 0; i < words; i++) {
            h = Long.rotateLeft((h ^ segment.get(ValueLayout.JAVA_LONG_UNALIGNED, from + i * Long.BYTES)) * 0xBF58476D1CE4E5B9L, 27);
        }
        return h;
    }

    private static long foldTail(long h, MemorySegment segment, long from, long to) {
        for (long i = from; i < to; i++) {
            h = (h ^ segment.get(ValueLayout.JAVA_BYTE, i)) * 0x94D049BB133111EBL;
        }
        return h;
    }

    private static long end(long h) {
        return h ^ (h >>> 31);
    }
}
