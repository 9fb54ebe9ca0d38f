package org.lockstep.pcie.mailbox;

import org.lockstep.api.Communicator;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Single-copy delivery of large messages into receive buffers that live in device memory — the
 * device equivalent of PEMS2's direct delivery. Without it a large payload is copied twice: from
 * the sender's buffer into a heap block, and from there into the receive buffer.
 *
 * <p>The rendezvous, for a message of at least the threshold to a receiver that holds device
 * buffers ({@link DeviceBuffers}):
 * <ol>
 * <li>The sender publishes the message's first fragment with no payload and
 *     {@code FLAG_RENDEZVOUS}; its heap block is only the receiver's line, whose answer word it
 *     zeroed ({@link HeapBlockDescriptor}). It places nothing more on that channel until the answer,
 *     so the channel's order is kept.</li>
 * <li>The receiver matches that fragment as any message, when it drains it. If it matched a posted
 *     receive from that very source (not {@code ANY_SOURCE}) whose buffer lies in one of its device
 *     buffers and holds the whole message, it answers ACCEPT with the buffer's device offset;
 *     otherwise — an unexpected message, a buffer in process memory, a wildcard receive, a
 *     truncating one — DECLINE. Either way the answer is given in the same drain, so the
 *     sender waits one hand-off at most.</li>
 * <li>On DECLINE the message continues as ordinary fragments through the heap. On ACCEPT the
 *     sender checks the offered range against the layout (it must lie in the receiver's heap
 *     partition: a hostile offset fails the send, it is never written), copies its buffer straight
 *     into it in chunks that stay in cache, and publishes a last fragment with {@code FLAG_DIRECT}
 *     that carries no payload: it says the bytes are there. That fragment completes the receive.</li>
 * </ol>
 * Truncation, cancel (a matched receive cannot be cancelled), the status and synchronous sends
 * behave as on the ordinary path; a sender or receiver that dies during the rendezvous is found by
 * the endpoint's failure detection, which fails the survivor's request and frees the block.
 *
 * <p>With checkpointing the device doubles as the message log; a payload delivered into a receive
 * buffer does not stay in the device as a retained message, so a job that retains messages must
 * run with the threshold at 0 (single copy off).
 *
 * <p>Used under the endpoint's lock.
 */
final class SingleCopy {
    /** Bytes copied at a time: well inside the L2 cache of the copying core. */
    static final long CHUNK = 256L << 10;

    /** What {@link #awaitAnswer} found. */
    enum Step { WAITING, DECLINED, COPIED, FAILED }

    /** Test hook: called after every chunk the sender copies, with the bytes copied so far. */
    interface ChunkObserver {
        void copied(SendRequest send, long bytes);
    }

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final TransportStatistics statistics;
    private final DeviceBuffers buffers;
    private long threshold;
    /** The job logs messages for checkpoints: single copy stays off whatever threshold is asked for. */
    private final boolean logging;
    private ChunkObserver observer = (send, bytes) -> { };

    SingleCopy(ExternalMemory device, MailboxLayout layout, int rank, TransportStatistics statistics, DeviceBuffers buffers,
               long threshold, boolean logging) {
        this.logging = logging;
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.statistics = statistics;
        this.buffers = buffers;
        this.threshold = threshold;
    }

    /** Messages of at least this many bytes are offered for single copy; 0 turns it off. */
    void threshold(long bytes) {
        this.threshold = logging ? 0 : Math.max(0, bytes);
    }

    long threshold() {
        return threshold;
    }

    void observeChunks(ChunkObserver chunkObserver) {
        this.observer = chunkObserver;
    }

    // ------------------------------------------------------------------ sender

    /** Whether {@code send}, not started yet, goes by rendezvous. */
    boolean offers(SendRequest send, int inlineCapacity) {
        return threshold > 0 && send.length >= threshold && send.length > inlineCapacity && send.dest != rank
                && device.getLongAcquire(layout.rankEntry(send.dest) + RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET) > 0;
    }

    /** Before the offer is published: the answer is "none yet". */
    void prepareBlock(long block) {
        device.putLong(block + HeapBlockDescriptor.ANSWER_OFFSET, HeapBlockDescriptor.ANSWER_NONE);
    }

    /**
     * Reads the receiver's answer to {@code send}'s offer; on ACCEPT checks the range and copies
     * the payload into it. A hostile answer fails the send ({@link Step#FAILED}).
     */
    Step awaitAnswer(SendRequest send) {
        Rendezvous r = send.rendezvous;
        if (r.target >= 0) {
            return Step.COPIED; // copied earlier; the last fragment still waits for a slot
        }
        long answer = device.getLongAcquire(r.block + HeapBlockDescriptor.ANSWER_OFFSET);
        if (answer == HeapBlockDescriptor.ANSWER_NONE) {
            return Step.WAITING;
        }
        if (answer == HeapBlockDescriptor.ANSWER_DECLINE) {
            statistics.singleCopyDeclined++;
            return Step.DECLINED;
        }
        long target = device.getLong(r.block + HeapBlockDescriptor.ANSWER_BUFFER_OFFSET);
        long length = device.getLong(r.block + HeapBlockDescriptor.ANSWER_LENGTH_OFFSET);
        try {
            if (answer != HeapBlockDescriptor.ANSWER_ACCEPT || length != send.length - send.placedBytes) {
                throw new DeviceException(org.lockstep.api.ErrorClass.INTERN, "corrupt device: rank " + send.dest
                        + " answered the single-copy offer of a message of " + send.length + " bytes with " + answer
                        + " for " + length + " bytes");
            }
            layout.checkBufferRange(send.dest, target, length);
        } catch (DeviceException hostile) {
            send.failWith(hostile);
            return Step.FAILED;
        }
        for (long done = 0; done < length; ) {
            long n = Math.min(CHUNK, length - done);
            device.write(target + done, send.buffer, send.placedBytes + done, n);
            done += n;
            observer.copied(send, done);
        }
        r.target = target;
        statistics.singleCopyMessages++;
        statistics.singleCopyBytes += length;
        statistics.bytesCopied += length;
        return Step.COPIED;
    }

    // ------------------------------------------------------------------ receiver

    /**
     * The receiver's answer to an offer it has just drained, matched to {@code receive} or to
     * nothing (null: unexpected). Accepting records the target in the message's reassembly.
     */
    void answer(IncomingMessage offer, ReceiveRequest receive) {
        long block = offer.payloadLockAddress - HeapBlockDescriptor.RELEASED_TICKET_OFFSET;
        long remaining = offer.messageLength - offer.length;
        long target = -1;
        if (receive != null && receive.posted.source() != Communicator.ANY_SOURCE && receive.capacity >= offer.messageLength) {
            long start = buffers.deviceOffset(receive.buffer, offer.messageLength);
            target = start < 0 ? -1 : start + offer.length;
        }
        if (target >= 0) {
            device.putLong(block + HeapBlockDescriptor.ANSWER_BUFFER_OFFSET, target);
            device.putLong(block + HeapBlockDescriptor.ANSWER_LENGTH_OFFSET, remaining);
            offer.reassembly.directTarget = target;
            statistics.singleCopyAccepted++;
        }
        device.putLongRelease(block + HeapBlockDescriptor.ANSWER_OFFSET,
                target >= 0 ? HeapBlockDescriptor.ANSWER_ACCEPT : HeapBlockDescriptor.ANSWER_DECLINE);
    }
}
