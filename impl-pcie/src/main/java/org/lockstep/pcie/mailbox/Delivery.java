package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;

/**
 * How the {@link Receiver} gets payloads out of the device: {@code copy_message} into a matched
 * receive's buffer (a fragmented message fragment by fragment, after what was staged before the
 * match), then {@code unlock_mailbox}, which hands an indirect payload's heap block back to its
 * sender. An unexpected message stays locked in its sender's heap while this rank keeps no more
 * than its share of that heap, else it is spilled into process memory. Whether a payload goes
 * back at all is the {@link ChannelLog}'s say: a logged one stays until a checkpoint releases it.
 *
 * <p>Used under the endpoint's lock.
 */
final class Delivery {
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final ExternalMemory device;
    private final ChannelLog log;
    private final TransportStatistics statistics;
    /** The receiver's channels, by source: each counts the heap bytes its unexpected messages hold. */
    private final ReceiveChannel[] channels;
    /** The share of a sender's heap that one receiver may keep locked by unexpected messages. */
    private final long heldHeapBudget;

    Delivery(ExternalMemory device, ChannelLog log, TransportStatistics statistics, ReceiveChannel[] channels, long heapPartitionLength) {
        this.device = device;
        this.log = log;
        this.statistics = statistics;
        this.channels = channels;
        this.heldHeapBudget = heapPartitionLength / (2L * Math.max(1, channels.length - 1));
    }

    /**
     * A receive matched {@code message}: {@code copy_message}, then {@code unlock_mailbox}. A
     * fragmented message completes the receive only once its last fragment is copied; until then
     * {@code channel} (the message's) holds the receive for the fragments still to come.
     */
    void deliver(ReceiveChannel channel, ReceiveRequest receive, IncomingMessage message) {
        log.matched(receive, message);
        receive.matched = message;
        receive.delivered += copyMessage(message, receive.buffer, 0, receive.capacity);
        unlockMailbox(message);
        Reassembly reassembly = message.reassembly;
        if (reassembly == null) {
            finish(receive);
            return;
        }
        if (reassembly.broken) {
            reassembly.releaseStaging();
            receive.failWith(new ProcessFailedException(ErrorClass.PROC_FAILED, message.source, "receive of a message of "
                    + message.messageLength + " bytes from rank " + message.source + ": the sender ended after "
                    + reassembly.arrived + " bytes"));
            return;
        }
        long room = Math.max(0, Math.min(reassembly.afterFirst(), receive.capacity - message.length));
        if (room > 0) {
            MemorySegment.copy(reassembly.staging(), 0, receive.buffer, message.length, room);
            receive.delivered += room;
            statistics.bytesCopied += room;
        }
        if (reassembly.isComplete()) {
            reassembly.releaseStaging();
            finish(receive);
        } else {
            channel.reassemblingInto = receive;
        }
    }

    /**
     * A later fragment of {@code r}'s message, at {@code offset} within it: into the buffer of
     * {@code receive}, the receive that matched the message, or into staging memory while none has.
     */
    void appendFragment(Reassembly r, ReceiveRequest receive, IncomingMessage fragment, long offset) {
        if (receive != null) {
            receive.delivered += copyMessage(fragment, receive.buffer, offset, receive.capacity);
            unlockMailbox(fragment);
            if (r.isComplete()) {
                r.releaseStaging();
                finish(receive);
            }
        } else {
            device.read(fragment.payloadAddress, r.staging(), offset - r.firstLength, fragment.length);
            statistics.bytesCopied += fragment.length;
            unlockMailbox(fragment);
            statistics.fragmentsStaged++;
        }
    }

    /** The program has consumed the whole message: the log hears of it, then the receive completes. */
    private void finish(ReceiveRequest receive) {
        IncomingMessage matched = receive.matched;
        log.consumed(matched.source, matched.sequence, matched.reassembly == null ? matched.sequence : matched.reassembly.lastSequence);
        receive.finish();
    }

    /**
     * An unexpected message: an in-place one is copied out and its slot released at once (a held
     * slot would stop the ring, and a receive the program posts later for a later message would
     * never match — MPI's progress rule forbids that). An indirect one stays locked in its
     * sender's heap while the receiver holds no more than its share of that heap; beyond, it is
     * copied out too. A synchronous message always stays: its release is the sender's signal.
     */
    void holdOrSpill(IncomingMessage message) {
        if (message.isSynchronous()) {
            return;
        }
        ReceiveChannel channel = channels[message.source];
        if (message.isIndirect() && channel.heldHeapBytes + message.length <= heldHeapBudget) {
            channel.heldHeapBytes += message.length;
            message.held = true;
            return;
        }
        spill(message);
    }

    /** Copies a payload into this rank's memory and hands its device space back. */
    void spill(IncomingMessage message) {
        if (message.spilled != null) {
            return;
        }
        // Java heap, not an automatic arena: an arena's native allocation and cleaner cost a microsecond per unexpected message.
        MemorySegment copy = message.length == 0 ? EMPTY
                : MemorySegment.ofArray(new long[(int) ((message.length + Long.BYTES - 1) / Long.BYTES)]).asSlice(0, message.length);
        if (message.length > 0) {
            readPayload(message, copy, 0, message.length);
            statistics.bytesCopied += message.length;
        }
        if (message.payloadLockAddress != IncomingMessage.NO_LOCK && !log.retains(message)) {
            device.putLongRelease(message.payloadLockAddress, message.ticket);
        }
        unhold(message);
        message.spilled = copy;
        statistics.messagesSpilled++;
    }

    private void unhold(IncomingMessage message) {
        if (message.held) {
            channels[message.source].heldHeapBytes -= message.length;
            message.held = false;
        }
    }

    /** {@code copy_message}: copies the payload into the receive buffer at {@code offset}, up to {@code capacity}. */
    private long copyMessage(IncomingMessage message, MemorySegment buffer, long offset, long capacity) {
        long n = Math.max(0, Math.min(message.length, capacity - offset));
        if (n > 0 && !message.isDirect()) { // a direct fragment was written into the buffer by its sender
            statistics.bytesCopied += n;
            if (message.spilled != null) {
                MemorySegment.copy(message.spilled, 0, buffer, offset, n);
            } else {
                readPayload(message, buffer, offset, n);
            }
        }
        statistics.bytesReceived += n;
        return n;
    }

    /** Copies {@code n} payload bytes of {@code message} into {@code target}: an in-place one through its ring's region. */
    private void readPayload(IncomingMessage message, MemorySegment target, long targetOffset, long n) {
        WordRegion ring = message.ring;
        if (ring != null) {
            ring.read(message.payloadAddress - ring.base(), target, targetOffset, n);
        } else {
            device.read(message.payloadAddress, target, targetOffset, n);
        }
    }

    /**
     * {@code unlock_mailbox}: hands an indirect payload's heap block back to its sender. (Slots go
     * back in order when a drain ends; an in-place payload has been copied out by then.)
     */
    private void unlockMailbox(IncomingMessage message) {
        unhold(message);
        if (message.spilled != null) {
            message.spilled = null;
        } else if (message.payloadLockAddress != IncomingMessage.NO_LOCK && !log.retains(message)) {
            device.putLongRelease(message.payloadLockAddress, message.ticket);
        }
    }
}
