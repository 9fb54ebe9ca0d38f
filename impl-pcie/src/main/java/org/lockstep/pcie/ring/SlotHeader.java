package org.lockstep.pcie.ring;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.WordRegion;

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
    /**
     * Where an in-place slot's header line is built before it goes to the device in one burst. In
     * native memory: stores into a heap segment each paid an alignment check, and the payload went
     * through a bulk copy (bounds and overlap checks) of a few bytes (JFR, 8 B messages: 14 % of the
     * path's samples in building this line).
     */
    final MemorySegment scratch = Arena.ofAuto().allocate(LayoutConstants.CACHE_LINE, LayoutConstants.CACHE_LINE);

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
        h.set(ValueLayout.JAVA_LONG, SEQUENCE_OFFSET, sequence);
        h.set(ValueLayout.JAVA_LONG, LENGTH_OFFSET, length);
        h.set(ValueLayout.JAVA_LONG, TAG_OFFSET, intPair(tag, context));
        h.set(ValueLayout.JAVA_LONG, FLAGS_OFFSET, intPair(flags, source));
        if (length > INDIRECT_DESCRIPTOR_LENGTH) {
            return HEADER_BURST_LENGTH;
        }
        for (long k = 0; k < length; k += Long.BYTES) {
            h.set(ValueLayout.JAVA_LONG, PAYLOAD_OFFSET + k, payloadWord(payload, payloadOffset, k));
        }
        return HEADER_BURST_LENGTH + length;
    }

    /**
     * Stores the in-place header and a payload that fits the rest of its line ({@code length} at
     * most {@link SlotDescriptor#INDIRECT_DESCRIPTOR_LENGTH}) into the slot at {@code slot} of
     * {@code words} as words: for a direct region, where a store costs no more than a store into
     * {@link #scratch} and the burst's bulk copy is saved. A partial last word is padded with zeros
     * (the slot's line has room for it).
     */
    void storeInPlace(WordRegion words, long slot, MemorySegment payload, long payloadOffset) {
        words.putLong(slot + SEQUENCE_OFFSET, sequence);
        words.putLong(slot + LENGTH_OFFSET, length);
        words.putLong(slot + TAG_OFFSET, intPair(tag, context));
        words.putLong(slot + FLAGS_OFFSET, intPair(flags, source));
        for (long k = 0; k < length; k += Long.BYTES) {
            words.putLong(slot + PAYLOAD_OFFSET + k, payloadWord(payload, payloadOffset, k));
        }
    }

    /** The payload's word at {@code k} (of at most three, read as words, no bulk copy); a partial last word padded with zeros. */
    private long payloadWord(MemorySegment payload, long payloadOffset, long k) {
        long rest = length - k;
        return rest >= Long.BYTES ? payload.get(ValueLayout.JAVA_LONG_UNALIGNED, payloadOffset + k)
                : partialWord(payload, payloadOffset + k, (int) rest);
    }

    /** The word whose first {@code bytes} (fewer than 8) bytes in device (native) order are {@code payload}'s from {@code offset}; the rest zero. */
    private static long partialWord(MemorySegment payload, long offset, int bytes) {
        long word = 0;
        for (int i = 0; i < bytes; i++) {
            long b = payload.get(ValueLayout.JAVA_BYTE, offset + i) & 0xffL;
            word |= b << (LITTLE_ENDIAN ? Byte.SIZE * i : Byte.SIZE * (Long.BYTES - 1 - i));
        }
        return word;
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
