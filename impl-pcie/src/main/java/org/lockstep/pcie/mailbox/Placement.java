package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;

/**
 * How the next piece of a send goes into a slot, chosen once per piece for the {@link Sender}
 * ({@link #choose}): its kind, its payload bytes and the slot flags that say so. One per sender,
 * reused. It also refuses at the start a message whose pieces could never fit the heap
 * partition ({@link #checkFits}, {@link #checkFitsOneBlock}).
 */
final class Placement {
    /** Length of the first fragment of a long message (later ones double). */
    private static final long FIRST_FRAGMENT = 8 << 10;

    /** The five ways a piece of a message travels. */
    enum Kind {
        /** Payload in the slot itself (up to the inline capacity). */
        INLINE,
        /** Payload in a heap block (or log ring block) the slot points at. */
        INDIRECT,
        /** One of several heap blocks of a message longer than a fragment. */
        FRAGMENT,
        /** The first fragment of a single-copy rendezvous: no payload, its block holds the receiver's answer. */
        OFFER,
        /** The last fragment of an accepted rendezvous: the payload is in the receive buffer already. */
        DIRECT
    }

    private final int inlineCapacity;
    /** Largest payload placed in one heap block; longer messages go as several fragments. */
    private final long maxFragment;
    private final SingleCopy singleCopy;
    private final ChannelLog log;

    Kind kind;
    /** Payload bytes of this piece. */
    long length;
    /** Whether this piece is the message's first, and its last. */
    boolean first;
    boolean last;
    /** Slot flags of this piece ({@link org.lockstep.pcie.layout.SlotDescriptor}). */
    int flags;

    Placement(int inlineCapacity, long maxFragment, SingleCopy singleCopy, ChannelLog log) {
        this.inlineCapacity = inlineCapacity;
        this.maxFragment = maxFragment;
        this.singleCopy = singleCopy;
        this.log = log;
    }

    /** Heap bytes of a block holding {@code payload} bytes. */
    private static long blockBytes(long payload) {
        return LayoutConstants.align(HeapBlockDescriptor.blockLength(payload), LayoutConstants.CACHE_LINE);
    }

    /**
     * Fails at once a message that could never be placed: a heap block of its largest piece would
     * not fit the heap partition of {@code heapCapacity} bytes. Reads only what never changes.
     */
    void checkFits(long bytes, boolean synchronous, int reportedDest, long heapCapacity) {
        if ((bytes > inlineCapacity || synchronous) && blockBytes(Math.min(bytes, maxFragment)) > heapCapacity) {
            throw new LockstepException(ErrorClass.NO_MEM, "message of " + bytes + " bytes to rank " + reportedDest
                    + " goes by indirection (inline threshold " + inlineCapacity + " bytes) in fragments of "
                    + Math.min(bytes, maxFragment) + " bytes, but the heap partition has only " + heapCapacity
                    + " bytes; raise lockstep.mailbox.heapPerRank above the inline threshold");
        }
    }

    /**
     * A send started before a restarted rank restored its checkpoint goes outside the log, in one
     * heap block: fails one whose block would not fit the heap partition of {@code heapCapacity} bytes.
     */
    void checkFitsOneBlock(long length, int reportedDest, long heapCapacity) {
        if (blockBytes(length) > heapCapacity) {
            throw new LockstepException(ErrorClass.NO_MEM, "message of " + length + " bytes to rank " + reportedDest
                    + " sent before the restarted rank restored its checkpoint must fit one heap block, but the heap "
                    + "partition has only " + heapCapacity + " bytes; restore the checkpoint before sending it");
        }
    }

    /** Chooses the placement of {@code send}'s next piece ({@code direct}: an accepted offer's payload is in place). */
    Placement choose(SendRequest send, boolean direct) {
        long remaining = send.length - send.placedBytes;
        boolean first = send.fragmentsPlaced == 0;
        Kind kind;
        long length = remaining;
        if (direct) {
            kind = Kind.DIRECT;
        } else if (first && singleCopy.offers(send, inlineCapacity)) {
            kind = Kind.OFFER;
            length = 0;
        } else if (!(send.length > inlineCapacity || send.synchronous || log.retainsMessages())) {
            // A synchronous message always goes through a heap block: its released word is the match signal.
            // With checkpoints, every message does: the heap is the message log (and single copy is off).
            kind = Kind.INLINE;
        } else if (!send.preamble && (send.length > Math.min(FIRST_FRAGMENT, maxFragment) || !first)) {
            kind = Kind.FRAGMENT;
            length = Math.min(remaining, fragmentLength(send.fragmentsPlaced));
        } else {
            kind = Kind.INDIRECT;
        }
        return set(kind, length, first, length == remaining, send.synchronous, send.preamble);
    }

    /**
     * Length of fragment {@code k} of a long message: the first is small so that the receiver can
     * start copying at once; each next one doubles, up to the largest fragment, so that long
     * messages do not pay a slot per few kilobytes.
     */
    private long fragmentLength(int k) {
        return k >= 30 ? maxFragment : Math.min(maxFragment, FIRST_FRAGMENT << k);
    }

    /** Whether this piece's payload goes through a heap block (or log ring block) this sender reserves. */
    boolean needsBlock() {
        return kind == Kind.INDIRECT || kind == Kind.FRAGMENT || kind == Kind.OFFER;
    }

    /** Whether the slot carries an indirect descriptor rather than the payload. */
    boolean indirect() {
        return kind != Kind.INLINE;
    }

    /** Bytes of the heap block this piece needs. */
    long blockLength() {
        return HeapBlockDescriptor.blockLength(length);
    }

    /** Sets this placement; the flags follow from the kind. */
    private Placement set(Kind kind, long length, boolean first, boolean last, boolean synchronous, boolean preamble) {
        this.kind = kind;
        this.length = length;
        this.first = first;
        this.last = last;
        // The receiver of a synchronous message releases its first slot only once a receive matched it.
        int f = synchronous && first ? FLAG_SYNCHRONOUS : 0;
        f |= switch (kind) {
            case INLINE -> 0;
            case INDIRECT -> FLAG_INDIRECT;
            case FRAGMENT -> FLAG_INDIRECT | (first ? FLAG_FRAGMENT_FIRST : FLAG_FRAGMENT_NEXT);
            case OFFER -> FLAG_INDIRECT | FLAG_FRAGMENT_FIRST | FLAG_RENDEZVOUS;
            case DIRECT -> FLAG_INDIRECT | FLAG_FRAGMENT_NEXT | FLAG_DIRECT;
        };
        this.flags = preamble ? f | FLAG_PREAMBLE : f;
        return this;
    }
}
