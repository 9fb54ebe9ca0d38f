package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.mailbox.Placement.Kind;
import org.lockstep.pcie.ring.SlotHeader;
import org.lockstep.pcie.ring.SlotRing;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.events.Events;

/**
 * The sending role of one rank ({@code MPI_Send} of seed 001's FIG. 3). For each piece of a
 * message it chooses a {@link Placement} — inline, indirect, fragment, single-copy offer or
 * direct — then reserves a block for the payload ({@link PayloadBlocks}: heap or log ring), writes it, locks a slot of
 * the pair mailbox ({@code lock_mailbox}; the receiver's asynchronous mailbox when the pair
 * mailbox is full), makes the message durable if the job logs, publishes the slot
 * ({@code place_message}) and accounts for it. A send that finds no room waits in its channel's
 * queue and is placed by a later progress round. The sender reclaims a heap block when it sees
 * the receiver release the slot that points at it.
 *
 * <p>Used under the endpoint's lock.
 */
final class Sender {
    private final int rank;
    private final int inlineCapacity;
    private final HeapAllocator heap;
    private final ChannelLog log;
    private final PeerWatch peers;
    private final SingleCopy singleCopy;
    private final TransportStatistics statistics;
    private final SendChannel[] channels;
    private final SlotHeader header;
    private final Placement placement;
    private final PayloadBlocks blocks;
    private int pendingSendCount;
    /** Placed messages whose slot release this sender still waits to see (ssend, indirect payloads). */
    private final AwaitedReleases awaitingRelease;

    Sender(ExternalMemory device, MailboxLayout layout, int rank, long maxFragment, HeapAllocator heap,
           ChannelLog log, PeerWatch peers, SingleCopy singleCopy, TransportStatistics statistics) {
        MailboxConfig config = layout.config();
        this.rank = rank;
        this.inlineCapacity = config.inlineCapacity();
        this.heap = heap;
        this.log = log;
        this.peers = peers;
        this.singleCopy = singleCopy;
        this.statistics = statistics;
        this.header = new SlotHeader(rank);
        this.awaitingRelease = new AwaitedReleases(device, heap);
        this.placement = new Placement(inlineCapacity, maxFragment, singleCopy, log);
        this.blocks = new PayloadBlocks(device, heap, log, singleCopy, awaitingRelease, statistics);
        int size = config.worldSize();
        this.channels = new SendChannel[size];
        for (int dest = 0; dest < size; dest++) {
            channels[dest] = new SendChannel(dest, SlotRing.pair(device, layout, rank, dest),
                    config.asyncSlots() > 0 ? SlotRing.async(device, layout, dest) : null);
        }
    }

    SendChannel channel(int dest) {
        return channels[dest];
    }

    /** The largest payload a slot carries in place. */
    int inlineCapacity() {
        return inlineCapacity;
    }

    /** Fails at once a message that could never be placed ({@link Placement#checkFits}); called outside the lock. */
    void checkFits(long bytes, boolean synchronous, int reportedDest) {
        placement.checkFits(bytes, synchronous, reportedDest, heap.capacity());
    }

    /** Starts {@code send}: places as much of it as there is room for, and queues the rest. */
    void start(SendRequest send) {
        if (log.inPreamble()) {
            placement.checkFitsOneBlock(send.length, send.reportedDest, heap.capacity());
            send.preamble = true;
        }
        peers.failIfGone(send.dest, null, "send to");
        SendChannel channel = channels[send.dest];
        if (!channel.busy()) {
            while (!send.fullyPlaced() && !send.abandoned && place(send)) {
                // place as many fragments as there is room for
            }
            if (send.fullyPlaced() || send.abandoned) {
                return;
            }
        }
        channel.pending.addLast(send);
        pendingSendCount++;
        statistics.sendsQueued++;
    }

    /**
     * A blocking send's shortcut: publishes a message that travels in place at once, with no
     * request, when it is no synchronous or logged send, nothing is queued before it on its
     * channel and the pair ring has room. Returns false, having changed nothing, when any of that
     * does not hold: the caller then starts a send as usual.
     */
    boolean placeInPlaceNow(MemorySegment buffer, long bytes, int dest, int tag, int context) {
        if (bytes > inlineCapacity || log.retainsMessages() || log.inPreamble()) {
            return false;
        }
        SendChannel channel = channels[dest];
        SlotRing ring = channel.ring;
        if (channel.busy() || log.placedBefore(dest, channel.nextSequence) || !ring.hasRoom()) {
            return false;
        }
        peers.failIfGone(dest, null, "send to");
        ring.publish(ring.next(), header.set(channel.nextSequence, tag, context, bytes, bytes, 0, 0), buffer, 0);
        if (Events.recording()) {
            SlotPublishedEvent.published(rank, dest, tag, context, Kind.INLINE, bytes, bytes, false, false);
        }
        channel.nextSequence++;
        ring.advance();
        statistics.pairMailboxSends++;
        statistics.bytesSent += bytes;
        statistics.bytesCopied += bytes;
        statistics.messagesSent++;
        return true;
    }

    /** Sends started and not yet fully placed. */
    int pendingSendCount() {
        return pendingSendCount;
    }

    /** Whether this sender waits to see slots released (so progress has work even when nothing arrives). */
    boolean awaitsReleases() {
        return !awaitingRelease.isEmpty();
    }

    /**
     * Places the message — or its next piece — in the next slot of the pair mailbox, or of the
     * receiver's asynchronous mailbox when the pair mailbox is full. Returns false, changing
     * nothing on the device, when neither has room or there is no room for the payload.
     */
    private boolean place(SendRequest send) {
        boolean direct = false;
        if (send.rendezvous != null) {
            // A single-copy offer waits for its answer; accepted, its payload is in the receive buffer already.
            SingleCopy.Step step = singleCopy.awaitAnswer(send);
            if (step == SingleCopy.Step.WAITING) {
                return false;
            }
            direct = step == SingleCopy.Step.COPIED;
            if (!direct) {
                Rendezvous r = send.rendezvous;
                send.rendezvous = null;
                awaitingRelease.add(new PlacedFragment(send.dest, r.block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, r.ticket,
                        r.block, r.blockLength, send.synchronous ? send : null));
                if (step == SingleCopy.Step.FAILED) {
                    return true;
                }
            }
        }
        Placement p = placement.choose(send, direct);
        SendChannel channel = channels[send.dest];
        if (!send.preamble && log.placedBefore(send.dest, channel.nextSequence)) {
            dropResend(send, channel, p);
            return true;
        }
        if (!channel.republish.isEmpty()) {
            return false; // what the predecessor placed goes first
        }
        boolean logged = log.retainsMessages() && !send.preamble;
        long block = HeapAllocator.FAILED;
        if (p.needsBlock()) {
            block = blocks.reserve(send.dest, p.blockLength(), logged);
            if (block == HeapAllocator.FAILED) {
                return false;
            }
            blocks.write(send, p, block);
        }
        SlotRing ring = channel.ring;
        long ticket;
        if (ring.hasRoom()) {
            ticket = ring.next();
        } else if (channel.asyncRing != null && !send.preamble && (ticket = channel.asyncRing.claim(rank)) != SlotRing.FULL) {
            ring = channel.asyncRing;
        } else {
            if (block != HeapAllocator.FAILED) {
                blocks.releaseUnpublished(send.dest, block, p.blockLength());
            }
            statistics.mailboxFullWaits++;
            return false;
        }
        publish(send, p, channel, ring, ticket, block, logged);
        account(send, p, channel, ring, ticket, block, logged);
        return true;
    }

    /** A restarted sender sends again what its predecessor placed after the checkpoint: the log has it. */
    private void dropResend(SendRequest send, SendChannel channel, Placement p) {
        channel.nextSequence++;
        send.placedBytes += p.length;
        send.fragmentsPlaced++;
        statistics.resendsDropped++;
        if (p.last) {
            send.matchedByReceiver = true;
            send.completeSend();
        }
    }

    /** Makes the piece durable if logged, then publishes its slot; on failure gives back what it took. */
    private void publish(SendRequest send, Placement p, SendChannel channel, SlotRing ring, long ticket, long block, boolean logged) {
        SlotHeader h = header.set(send.preamble ? 0 : channel.nextSequence, send.tag, send.context, p.length, send.length, p.flags,
                p.kind == Kind.DIRECT ? send.rendezvous.target : p.indirect() ? block : 0);
        boolean inLog = false;
        try {
            if (logged) {
                // Durable before visible: the logged block (and a heap block's directory entry) is persisted before the slot is published.
                log.record(block, p.blockLength(), send.dest, h);
                inLog = true;
            }
            ring.publish(ticket, h, p.indirect() ? null : send.buffer, send.placedBytes);
        } catch (RuntimeException e) {
            if (block != HeapAllocator.FAILED && !inLog) { // a logged block stays: the log reclaims it
                blocks.releaseUnpublished(send.dest, block, p.blockLength());
            }
            if (ring != channel.ring) {
                ring.publishVoid(ticket, header); // a claimed asynchronous ticket must be published, or the receiver's ring stops there
            }
            throw e;
        }
        if (inLog) {
            log.published();
        }
    }

    /** After a piece is published: cursors, counters, what this sender must see released, and completion. */
    private void account(SendRequest send, Placement p, SendChannel channel, SlotRing ring, long ticket, long block, boolean logged) {
        if (!send.preamble) {
            channel.nextSequence++;
            if (Events.recording()) {
                SlotPublishedEvent.published(rank, send, p, ring != channel.ring, logged);
            }
        }
        if (ring == channel.ring) {
            ring.advance();
            statistics.pairMailboxSends++;
        } else {
            statistics.asyncMailboxSends++;
        }
        send.placedBytes += p.length;
        send.fragmentsPlaced++;
        statistics.bytesSent += p.length;
        if (p.indirect()) {
            statistics.indirectSends++;
        }
        SendRequest completes = send.synchronous && p.first ? send : null;
        if (p.kind == Kind.OFFER) {
            send.rendezvous = new Rendezvous(block, p.blockLength(), ticket);
        } else if (p.kind == Kind.DIRECT) {
            // The receiver matched the offer before it answered: a synchronous send is matched.
            Rendezvous r = send.rendezvous;
            send.rendezvous = null;
            send.matchedByReceiver = true;
            awaitingRelease.add(new PlacedFragment(send.dest, r.block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, r.ticket,
                    r.block, r.blockLength, null));
        } else {
            statistics.bytesCopied += p.length;
        }
        if (logged) {
            // The log frees the block (after the receiver's checkpoint); the release word only completes a synchronous send.
            if (completes != null) {
                awaitingRelease.add(new PlacedFragment(send.dest, block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, ticket,
                        HeapAllocator.FAILED, 0, send));
            }
        } else if (p.kind == Kind.INDIRECT || p.kind == Kind.FRAGMENT) {
            awaitingRelease.add(new PlacedFragment(send.dest, block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, ticket,
                    block, p.blockLength(), completes));
        }
        if (p.last) {
            statistics.messagesSent++;
            if (!send.synchronous || send.matchedByReceiver) {
                send.completeSend();
            }
        }
    }

    /** Frees heap blocks and completes synchronous sends whose slots the receivers have released. */
    boolean reclaimReleased() {
        return awaitingRelease.reclaim();
    }

    /** Places what waits: first a predecessor's unpublished logged messages, then queued sends, in order. */
    boolean placePending() {
        boolean any = log.retainsMessages() && republishLogged();
        if (pendingSendCount == 0) {
            return any;
        }
        for (SendChannel channel : channels) {
            var queue = channel.pending;
            while (!queue.isEmpty() && place(queue.peekFirst())) {
                any = true;
                if (queue.peekFirst().fullyPlaced() || queue.peekFirst().abandoned) {
                    queue.pollFirst();
                    pendingSendCount--;
                }
            }
            if (!queue.isEmpty() && log.fullTooLong()) {
                SendRequest stuck = queue.pollFirst();
                pendingSendCount--;
                stuck.failWith(log.fullError(stuck.length, stuck.reportedDest));
                any = true;
            }
        }
        return any;
    }

    /** Publishes, in order, the logged messages a predecessor placed but died before publishing. */
    private boolean republishLogged() {
        boolean any = false;
        for (SendChannel channel : channels) {
            any |= channel.republishLogged(header, statistics);
        }
        return any;
    }

    /**
     * A restart: each pair ring resumes after its last published ticket, what the predecessor
     * logged beyond the last published sequence number is published again first, and sequence
     * numbers go on from the checkpoint (re-sends up to what was placed are dropped).
     */
    void resume(MessageLog messageLog, long[] sentAtCheckpoint) {
        for (SendChannel channel : channels) {
            channel.resume(messageLog, sentAtCheckpoint[channel.dest]);
        }
    }

    /** Per destination, the sequence number of the next message (for a checkpoint). */
    long[] nextSequences() {
        long[] next = new long[channels.length];
        for (SendChannel channel : channels) {
            next[channel.dest] = channel.nextSequence;
        }
        return next;
    }

    /**
     * Fails every send that waits on a destination that has failed or finished, and gives back
     * the heap blocks a receiver that has ended will never read.
     */
    void failOnGonePeers() {
        for (SendChannel channel : channels) {
            if (!peers.isGone(channel.dest)) {
                continue;
            }
            for (SendRequest send : channel.pending) {
                if (send.rendezvous != null) {
                    heap.release(send.rendezvous.block, send.rendezvous.blockLength); // the receiver never answers now
                    send.rendezvous = null;
                }
                send.failWith(peers.error(channel.dest, "send to"));
                pendingSendCount--;
            }
            channel.pending.clear();
        }
        awaitingRelease.failOnGonePeers(peers);
    }

    /** At close: every send still pending fails with {@code error}'s message. */
    void failAll(Function<String, LockstepException> error) {
        for (SendChannel channel : channels) {
            channel.pending.forEach(send -> send.failWith(error.apply("send")));
            channel.pending.clear();
        }
        pendingSendCount = 0;
        awaitingRelease.failAll(error);
    }
}
