package org.lockstep.pcie.ring;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import java.lang.foreign.MemorySegment;

import org.lockstep.pcie.layout.AsyncMailboxDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.PairMailboxDescriptor;
import org.lockstep.pcie.layout.SlotDescriptor;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;

/**
 * The mailbox protocol of seed 001 on one ring of slots ({@link SlotDescriptor}): a pair mailbox
 * ({@link PairMailboxDescriptor}, one sender) or a receiver's asynchronous mailbox
 * ({@link AsyncMailboxDescriptor}, senders claim tickets with compare-and-set).
 *
 * <pre>
 *   sender                                   receiver
 *   hasRoom(t) / claim()   -- lock_mailbox
 *   publish(t, header)     -- place_message: payload and header, then the ticket (release)
 *                                            drain(reader): every slot whose ticket is published,
 *                                            in ticket order, then
 *                                            handBack(t) -- unlock_mailbox: one release store of
 *                                                           the drained ticket per batch
 * </pre>
 *
 * Message number {@code t} lives in slot {@code (t - 1) mod n}; the sender may fill it once the
 * drained ticket is at least {@code t - n}. Every control word has one writer (the claim word of
 * an asynchronous ring is shared, and needs device CAS). An instance is one party's view: a
 * sender's (its next ticket, the drained ticket as last read) or the receiver's (its next
 * ticket to drain); used under that party's lock.
 */
public final class SlotRing {
    /** What {@link #claim} returns when the ring has no free slot. */
    public static final long FULL = 0;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    /** What the receiver does with each published slot: {@link #read} checks its header, {@link #take} takes it. */
    public interface Reader<T> {
        /** Reads and checks the slot's header; null for a slot that carries nothing (it is handed back all the same). */
        T read(long slot, long ticket);

        /** Takes a message read from the ring; the ticket is drained already. */
        void take(T message);
    }

    /** The ring's mailbox (control words and slots), checked once: every access below is relative to it. */
    private final WordRegion words;
    private final MailboxLayout layout;
    /** Where the slots start, from the region's start. */
    private final long slotsBase;
    private final int slots;
    private final long drainedWord;
    /** The shared claim word of an asynchronous ring; -1 for a pair ring. */
    private final long claimWord;
    /** Keys the descriptor check of the indirect slots this ring's sender publishes. */
    private final long jobKey;
    /** The owner's next ticket: to publish (a pair ring's sender) or to drain (the receiver). */
    private long next = 1;
    /** The drained ticket as the sender last read it (it only grows). */
    private long knownDrained;

    private SlotRing(WordRegion words, MailboxLayout layout, long slotsBase, int slots, long drainedWord, long claimWord) {
        this.words = words;
        this.layout = layout;
        this.slotsBase = slotsBase;
        this.slots = slots;
        this.drainedWord = drainedWord;
        this.claimWord = claimWord;
        this.jobKey = layout.config().jobKey();
    }

    /** The pair mailbox of ({@code sender}, {@code receiver}). */
    public static SlotRing pair(ExternalMemory device, MailboxLayout layout, int sender, int receiver) {
        long mailbox = layout.mailboxAddress(sender, receiver);
        return new SlotRing(device.region(mailbox, layout.mailboxLength()), layout, MailboxLayout.pairSlotsBase(0),
                layout.config().slotsPerMailbox(), MailboxLayout.lockAddress(0), -1);
    }

    /** The asynchronous mailbox of {@code receiver} (only when the layout has them). */
    public static SlotRing async(ExternalMemory device, MailboxLayout layout, int receiver) {
        long mailbox = layout.asyncMailboxAddress(receiver);
        return new SlotRing(device.region(mailbox, layout.asyncMailboxLength()), layout, layout.asyncSlotsBase(receiver) - mailbox,
                layout.config().asyncSlots(), layout.asyncLockAddress(receiver) - mailbox, AsyncMailboxDescriptor.CLAIMED_TICKET_OFFSET);
    }

    /**
     * The ring's mailbox as a region: a {@link Reader} reads a slot's words through it, at
     * {@link #inRegion} of the slot's device offset.
     */
    public WordRegion words() {
        return words;
    }

    /** The offset in {@link #words()} of the device offset {@code deviceOffset}. */
    public long inRegion(long deviceOffset) {
        return deviceOffset - words.base();
    }

    /** The device offset of the slot of message number {@code ticket}. */
    public long slot(long ticket) {
        return words.base() + at(ticket);
    }

    /** The slot of message number {@code ticket}, from the region's start. */
    private long at(long ticket) {
        return layout.slotAddress(slotsBase, ticket, slots);
    }

    /** The owner's next ticket. */
    public long next() {
        return next;
    }

    /** The owner moves on to its next ticket (a sender after publishing at {@link #next}). */
    public void advance() {
        next++;
    }

    // ------------------------------------------------------------------ sender

    /**
     * {@code lock_mailbox} for the sender of a pair ring: whether the slot for {@link #next} has
     * been drained (its previous occupant was {@code next - slots}). The drained ticket is re-read
     * only when the cached one says no.
     */
    public boolean hasRoom() {
        long needed = next - slots;
        if (needed <= knownDrained) {
            return true;
        }
        knownDrained = words.getLongAcquire(drainedWord);
        return needed <= knownDrained;
    }

    /**
     * Claims the next ticket of an asynchronous ring for {@code claimer}, or returns {@link #FULL}.
     * The claimed slot says who holds it ({@link #claimMark}) until it is published, so that the
     * receiver can skip it if the claimer dies; a claimed ticket must be published.
     */
    public long claim(int claimer) {
        for (int attempt = 0; attempt < 8; attempt++) {
            long claimed = words.getLongVolatile(claimWord);
            long ticket = claimed + 1;
            if (ticket - slots > words.getLongAcquire(drainedWord)) {
                return FULL;
            }
            if (words.compareAndSetLong(claimWord, claimed, ticket)) {
                words.putLongRelease(at(ticket) + SEQUENCE_OFFSET, claimMark(ticket, claimer));
                return ticket;
            }
        }
        return FULL;
    }

    /** What a claimer writes in a claimed asynchronous slot's sequence word until it publishes (never a sequence number). */
    public static long claimMark(long ticket, int claimer) {
        return -((ticket << 16) | claimer) - 1;
    }

    /**
     * {@code place_message}: writes the slot of {@code ticket} — header and in-place payload from
     * {@code inPlace} at {@code offset}, or, with {@code inPlace} null, header and indirect
     * descriptor — in as few device transactions as it fits in, then publishes the ticket with a
     * release store. A payload that fits in the header's cache line travels with it, as one line.
     */
    public void publish(long ticket, SlotHeader h, MemorySegment inPlace, long offset) {
        long slot = at(ticket);
        if (inPlace == null) {
            // An indirect slot is header and descriptor only: word stores, no bulk copy through a scratch segment.
            long tagWord = SlotHeader.intPair(h.tag, h.context);
            long flagsWord = SlotHeader.intPair(h.flags, h.source);
            words.putLong(slot + SEQUENCE_OFFSET, h.sequence);
            words.putLong(slot + LENGTH_OFFSET, h.length);
            words.putLong(slot + TAG_OFFSET, tagWord);
            words.putLong(slot + FLAGS_OFFSET, flagsWord);
            words.putLong(slot + HEAP_OFFSET_OFFSET, h.heapOffset);
            words.putLong(slot + MESSAGE_LENGTH_OFFSET, h.messageLength);
            words.putLong(slot + DESCRIPTOR_CHECK_OFFSET, SlotDescriptor.descriptorCheck(jobKey, ticket, h.sequence, h.length,
                    tagWord, flagsWord, h.heapOffset, h.messageLength));
            words.putLongRelease(slot + TICKET_OFFSET, ticket);
            return;
        }
        if (words.isDirect() && h.length <= INDIRECT_DESCRIPTOR_LENGTH) {
            h.storeInPlace(words, slot, inPlace, offset);
            words.putLongRelease(slot + TICKET_OFFSET, ticket);
            return;
        }
        // Through the device's methods: one burst from the scratch line, one device transaction.
        long burst = h.buildInPlace(inPlace, offset);
        if (h.length > INDIRECT_DESCRIPTOR_LENGTH) {
            words.write(slot + PAYLOAD_OFFSET, inPlace, offset, h.length);
        }
        words.write(slot + SEQUENCE_OFFSET, h.scratch, SEQUENCE_OFFSET, burst);
        words.putLongRelease(slot + TICKET_OFFSET, ticket);
    }

    /** Publishes a claimed ticket that carries nothing ({@code FLAG_VOID}): the receiver drains it and goes on. */
    public void publishVoid(long ticket, SlotHeader h) {
        h.set(0, 0, 0, 0, 0, FLAG_VOID, 0);
        publish(ticket, h, EMPTY, 0);
    }

    /**
     * A restarted sender resumes its pair ring after the last ticket it published (they are
     * still in the ring after the drained ticket) and returns it.
     */
    public long resumeAfterPublished() {
        long drained = words.getLongAcquire(drainedWord);
        long ticket = drained + 1;
        while (ticket - drained <= slots && isPublished(ticket)) {
            ticket++;
        }
        knownDrained = drained;
        next = ticket;
        return ticket;
    }

    /**
     * The sequence number of the last slot before {@link #next} still in the ring whose flags
     * have none of {@code skippedFlags}; 0 if there is none.
     */
    public long lastSequenceWithout(int skippedFlags) {
        for (long t = next - 1; t >= 1 && next - t <= slots; t--) {
            long slot = at(t);
            if (!isPublished(t)) {
                break;
            }
            if ((words.getInt(slot + FLAGS_OFFSET) & skippedFlags) == 0) {
                return words.getLong(slot + SEQUENCE_OFFSET);
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------ receiver

    /** Whether message number {@code ticket} has been published (an acquire read of its ticket word). */
    public boolean isPublished(long ticket) {
        return words.getLongAcquire(at(ticket) + TICKET_OFFSET) == ticket;
    }

    /** Whether the receiver's next ticket has been published. */
    public boolean hasArrival() {
        return isPublished(next);
    }

    /**
     * Reads every published slot from the receiver's next ticket on, in ticket order, and hands
     * the drained slots back with one store. Returns whether any was drained.
     */
    public <T> boolean drain(Reader<T> reader) {
        long first = next;
        while (isPublished(next)) {
            T message = reader.read(slot(next), next);
            next++;
            if (message != null) {
                reader.take(message);
            }
        }
        if (next == first) {
            return false;
        }
        handBack(next - 1);
        return true;
    }

    /** {@code unlock_mailbox} for slots: every ticket up to {@code through} is free for its sender again. */
    public void handBack(long through) {
        words.putLongRelease(drainedWord, through);
    }

    /** A restarted receiver resumes after the slots its predecessor handed back. */
    public void resumeAfterHandedBack() {
        next = words.getLongAcquire(drainedWord) + 1;
    }

    /** Whether the receiver's next ticket of an asynchronous ring has been claimed and not yet published. */
    public boolean nextClaimedUnpublished() {
        return words.getLongVolatile(claimWord) >= next && !isPublished(next);
    }

    /** The claim mark in the receiver's next slot ({@link #claimMark}, if its claimer wrote one). */
    public long claimMarkAtNext() {
        return words.getLongAcquire(at(next) + SEQUENCE_OFFSET);
    }

    /** Skips the receiver's next ticket, whose claimer died before publishing it, and hands it back. */
    public void skipAbandoned() {
        next++;
        handBack(next - 1);
    }
}
