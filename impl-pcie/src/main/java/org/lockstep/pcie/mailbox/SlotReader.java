package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import org.lockstep.api.ErrorClass;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;

/**
 * Reads and checks the header of a published slot ({@link org.lockstep.pcie.layout.SlotDescriptor})
 * into an {@link IncomingMessage}: every field and offset read from the device is checked against
 * the layout before use, so a corrupt or hostile device image fails here, before any payload is
 * touched, with a clear error.
 */
final class SlotReader {
    /** No message is longer than this (2^48 bytes); a longer length read from the device is corruption. */
    private static final long MAX_MESSAGE_LENGTH = 1L << 48;

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final int inlineCapacity;
    private final long jobKey;

    SlotReader(ExternalMemory device, MailboxLayout layout, int rank) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.inlineCapacity = layout.config().inlineCapacity();
        this.jobKey = layout.config().jobKey();
    }

    /**
     * The message in {@code slot} (a device offset in the ring's region {@code words}), published
     * as {@code ticket}, from {@code expectedSource} (-1: any, the asynchronous mailbox). A void
     * asynchronous slot gives null.
     */
    IncomingMessage read(WordRegion words, long slot, long ticket, int expectedSource) {
        long at = slot - words.base();
        // The ticket was read with acquire, so these plain loads see what the sender wrote before it.
        long sequence = words.getLong(at + SEQUENCE_OFFSET);
        long length = words.getLong(at + LENGTH_OFFSET);
        long tagWord = words.getLong(at + TAG_OFFSET);
        long flagsWord = words.getLong(at + FLAGS_OFFSET);
        int tag = SlotHeader.lowInt(tagWord);
        int context = SlotHeader.highInt(tagWord);
        int flags = SlotHeader.lowInt(flagsWord);
        int source = SlotHeader.highInt(flagsWord);
        if (flags == FLAG_VOID && expectedSource < 0) {
            return null;
        }
        checkEnvelope(slot, expectedSource, source, flags, tag, context, sequence);
        if ((flags & FLAG_INDIRECT) == 0) {
            if (length < 0 || length > inlineCapacity || flags != 0) {
                throw corrupt(slot, "in-place length " + length + " (inline capacity " + inlineCapacity + "), flags 0x"
                        + Integer.toHexString(flags));
            }
            IncomingMessage inPlace = new IncomingMessage(slot, ticket, sequence, source, tag, context, length, length, flags,
                    slot + PAYLOAD_OFFSET, IncomingMessage.NO_LOCK);
            inPlace.ring = words;
            return inPlace;
        }
        long block = words.getLong(at + HEAP_OFFSET_OFFSET);
        long messageLength = words.getLong(at + MESSAGE_LENGTH_OFFSET);
        if (words.getLong(at + DESCRIPTOR_CHECK_OFFSET)
                != descriptorCheck(jobKey, ticket, sequence, length, tagWord, flagsWord, block, messageLength)) {
            throw corrupt(slot, "a descriptor check that does not match its header and descriptor (tag " + tag + ", length " + length
                    + ", heap offset " + block + ", message length " + messageLength + ")");
        }
        checkIndirect(slot, flags, length, messageLength);
        if ((flags & FLAG_DIRECT) != 0) {
            layout.checkBufferRange(rank, block, length);
            return new IncomingMessage(slot, ticket, sequence, source, tag, context, length, messageLength, flags,
                    block, IncomingMessage.NO_LOCK);
        }
        layout.checkHeapRange(source, block, length);
        return new IncomingMessage(slot, ticket, sequence, source, tag, context, length, messageLength, flags,
                block + HeapBlockDescriptor.PAYLOAD_OFFSET, block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET);
    }

    private void checkEnvelope(long slot, int expectedSource, int source, int flags, int tag, int context, long sequence) {
        if (source < 0 || source >= size || (expectedSource >= 0 && source != expectedSource)) {
            throw corrupt(slot, "source rank " + source + (expectedSource >= 0 ? " in the mailbox of sender " + expectedSource : ""));
        }
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw corrupt(slot, "unknown flags 0x" + Integer.toHexString(flags));
        }
        boolean preambleSlot = (flags & FLAG_PREAMBLE) != 0;
        if (tag < 0 || context < 0 || (preambleSlot ? sequence != 0 : sequence < 1)) {
            throw corrupt(slot, "tag " + tag + ", context " + context + ", sequence " + sequence);
        }
        if (preambleSlot && ((flags & FLAG_INDIRECT) == 0 || expectedSource < 0
                || (flags & (FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT | FLAG_RENDEZVOUS | FLAG_DIRECT)) != 0)) {
            throw corrupt(slot, "preamble flags 0x" + Integer.toHexString(flags) + (expectedSource < 0 ? " in the asynchronous mailbox" : ""));
        }
    }

    private void checkIndirect(long slot, int flags, long length, long messageLength) {
        boolean fragment = (flags & (FLAG_FRAGMENT_FIRST | FLAG_FRAGMENT_NEXT)) != 0;
        if (messageLength < 0 || messageLength > MAX_MESSAGE_LENGTH
                // a later fragment may carry all of it, after a first fragment with no payload (a declined single-copy offer)
                || (fragment ? messageLength < length || (flags & FLAG_FRAGMENT_FIRST) != 0 && messageLength == length
                || (flags & FLAG_FRAGMENT_FIRST) != 0 && (flags & FLAG_FRAGMENT_NEXT) != 0
                : messageLength != length)) {
            throw corrupt(slot, "fragment flags 0x" + Integer.toHexString(flags) + " with length " + length
                    + " of a message of " + messageLength);
        }
        if ((flags & (FLAG_RENDEZVOUS | FLAG_DIRECT)) != 0
                && ((flags & FLAG_RENDEZVOUS) != 0 ? (flags & FLAG_FRAGMENT_FIRST) == 0 || length != 0 || (flags & FLAG_DIRECT) != 0
                : (flags & FLAG_FRAGMENT_NEXT) == 0)) {
            throw corrupt(slot, "single-copy flags 0x" + Integer.toHexString(flags) + " with length " + length);
        }
    }

    /** The error for a slot that has {@code what}: the device is corrupt. */
    DeviceException corrupt(long slot, String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": slot at offset " + slot
                + " read by rank " + rank + " has " + what);
    }
}
