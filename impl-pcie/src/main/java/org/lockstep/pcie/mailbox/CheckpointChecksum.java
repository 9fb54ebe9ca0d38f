package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The checksum of a checkpoint slot ({@link org.lockstep.pcie.layout.CheckpointSlotDescriptor}):
 * the JDK's CRC32C (hardware-assisted, the check storage systems use against torn and damaged
 * writes) of epoch and length, as two little-endian longs, then the body. In pieces, so that a
 * commit folds the transport section and the registered state where each lies, without copying
 * the state. The slot's 8-byte word holds the 32-bit value.
 */
final class CheckpointChecksum {
    /** Bytes copied at a time from memory that is not a byte array and not native (a {@code long[]} body). */
    private static final int COPY_BYTES = 8192;

    private CheckpointChecksum() {
    }

    /** The checksum of a body of {@code length} bytes as read back. */
    static long of(long epoch, MemorySegment body, long length) {
        CRC32C crc = header(epoch, length);
        update(crc, body, length);
        return crc.getValue();
    }

    /** The checksum of a body of {@code bodyLength} bytes: {@code transportWords} words of {@code transport}, then {@code state}'s pieces in order. */
    static long of(long epoch, long bodyLength, MemorySegment transport, long transportWords, List<MemorySegment> state) {
        CRC32C crc = header(epoch, bodyLength);
        update(crc, transport, transportWords * Long.BYTES);
        for (MemorySegment piece : state) {
            update(crc, piece, piece.byteSize());
        }
        return crc.getValue();
    }

    private static CRC32C header(long epoch, long length) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(2 * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(epoch).putLong(length).flip());
        return crc;
    }

    /** Folds the first {@code length} bytes of {@code segment}: straight from it where it can be seen as a buffer, else copied in pieces. */
    private static void update(CRC32C crc, MemorySegment segment, long length) {
        boolean asBuffer = segment.heapBase().map(base -> base instanceof byte[]).orElse(true);
        byte[] copy = asBuffer ? null : new byte[(int) Math.min(COPY_BYTES, length)];
        for (long from = 0; from < length; ) {
            int piece = (int) Math.min(asBuffer ? Integer.MAX_VALUE : COPY_BYTES, length - from);
            if (asBuffer) {
                crc.update(segment.asSlice(from, piece).asByteBuffer());
            } else {
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, from, copy, 0, piece);
                crc.update(copy, 0, piece);
            }
            from += piece;
        }
    }
}
