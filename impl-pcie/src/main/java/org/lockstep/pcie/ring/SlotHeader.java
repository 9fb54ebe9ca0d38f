package org.lockstep.pcie.ring;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.SlotDescriptor;

/**
 * The header of the next slot a sender publishes ({@link SlotDescriptor}): filled field by field,
 * then handed to {@link SlotRing#publish}. One per sender, reused for every message (no
 * allocation on the send path); used under the sender's lock.
 */
public final class SlotHeader {
    private static final boolean LITTLE_ENDIAN = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN;

    public long sequence;
    /** Bytes of payload in this slot. */
    public long length;
    /** Bytes of the whole message (all fragments); an indirect slot carries it. */
    public long messageLength;
    public int tag;
    public int context;
    public int flags;
    public int source;
    /** An indirect slot's heap block offset (or, with {@code FLAG_DIRECT}, the receive buffer's offset). */
    public long heapOffset;
    /** Where an in-place slot's header line is built before it goes to the device in one burst. */
    final MemorySegment scratch = MemorySegment.ofArray(new long[LayoutConstants.CACHE_LINE / Long.BYTES]);

    public SlotHeader(int source) {
        this.source = source;
    }

    /** Sets the fields every slot carries; returns this header. */
    public SlotHeader set(long sequence, int tag, int context, long length, long messageLength, int flags, long heapOffset) {
        this.sequence = sequence;
        this.tag = tag;
        this.context = context;
        this.length = length;
        this.messageLength = messageLength;
        this.flags = flags;
        this.heapOffset = heapOffset;
        return this;
    }

    /** Builds the in-place header (and up to the rest of its line of payload) in {@link #scratch}; returns the burst length. */
    long buildInPlace(MemorySegment payload, long payloadOffset) {
        MemorySegment h = scratch;
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, SEQUENCE_OFFSET, sequence);
        h.set(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH_OFFSET, length);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, TAG_OFFSET, tag);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, CONTEXT_OFFSET, context);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, FLAGS_OFFSET, flags);
        h.set(ValueLayout.JAVA_INT_UNALIGNED, SOURCE_OFFSET, source);
        if (length <= INDIRECT_DESCRIPTOR_LENGTH) {
            MemorySegment.copy(payload, payloadOffset, h, PAYLOAD_OFFSET, length);
            return HEADER_BURST_LENGTH + length;
        }
        return HEADER_BURST_LENGTH;
    }

    /** The 8-byte word holding int {@code first} at its offset and int {@code second} 4 bytes after (device byte order is native). */
    public static long intPair(int first, int second) {
        return LITTLE_ENDIAN ? ((long) second << 32) | (first & 0xffffffffL) : ((long) first << 32) | (second & 0xffffffffL);
    }

    /** The int at a word's offset ({@link #intPair}'s first). */
    public static int lowInt(long word) {
        return LITTLE_ENDIAN ? (int) word : (int) (word >>> 32);
    }

    /** The int 4 bytes after a word's offset ({@link #intPair}'s second). */
    public static int highInt(long word) {
        return LITTLE_ENDIAN ? (int) (word >>> 32) : (int) word;
    }
}
