package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.SlotDescriptor.*;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;

import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.ring.SlotRing;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;
import org.lockstep.spi.messaging.Envelope;
import org.lockstep.spi.messaging.MatchingEngine;

/**
 * The receiving role of one rank. Every progress round it drains newly published slots from the
 * pair mailboxes (source, this rank) and this rank's asynchronous mailbox, restores each
 * channel's send order by sequence number and hands each message to the {@link MatchingEngine}.
 * A matched message is delivered ({@link Delivery}: {@code copy_message} into the receive
 * buffer, then {@code unlock_mailbox}); an unexpected one waits in the device or is spilled; a
 * fragmented one is reassembled, in the receive buffer once matched, in staging before.
 *
 * <p>Used under the endpoint's lock.
 */
final class Receiver {
    /** Rounds between two reads of an empty asynchronous mailbox. */
    private static final int ASYNC_POLL_INTERVAL = 4;

    private final int rank;
    private final MatchingEngine<IncomingMessage> matching;
    private final ChannelLog log;
    private final PeerWatch peers;
    private final SingleCopy singleCopy;
    private final TransportStatistics statistics;
    private final SlotReader slots;
    private final ReceiveChannel[] channels;
    /** This rank's asynchronous mailbox; null without device atomics. */
    private final SlotRing asyncRing;
    private final Delivery delivery;
    private final SlotRing.Reader<IncomingMessage> asyncReader;
    private int asyncIdleRounds;
    private boolean asyncRecentlyUsed;
    /** When the asynchronous ring was first seen claimed but unpublished at its next ticket; 0 if not stuck. */
    private long asyncStuckSince;

    Receiver(ExternalMemory device, MailboxLayout layout, int rank, MatchingEngine<IncomingMessage> matching, ChannelLog log,
             PeerWatch peers, SingleCopy singleCopy, TransportStatistics statistics) {
        MailboxConfig config = layout.config();
        int size = config.worldSize();
        this.rank = rank;
        this.matching = matching;
        this.log = log;
        this.peers = peers;
        this.singleCopy = singleCopy;
        this.statistics = statistics;
        this.slots = new SlotReader(device, layout, rank);
        this.channels = new ReceiveChannel[size];
        for (int source = 0; source < size; source++) {
            SlotRing ring = SlotRing.pair(device, layout, source, rank);
            channels[source] = new ReceiveChannel(source, ring, reader(ring, source));
        }
        this.delivery = new Delivery(device, log, statistics, channels, layout.heapPartitionLength());
        this.asyncRing = config.asyncSlots() > 0 ? SlotRing.async(device, layout, rank) : null;
        this.asyncReader = asyncRing == null ? null : reader(asyncRing, -1);
    }

    /** How {@code ring}'s slots become arrivals: checked headers ({@link SlotReader}), then {@link #accept}. */
    private SlotRing.Reader<IncomingMessage> reader(SlotRing ring, int expectedSource) {
        WordRegion words = ring.words();
        return new SlotRing.Reader<>() {
            @Override
            public IncomingMessage read(long slot, long ticket) {
                return slots.read(words, slot, ticket, expectedSource);
            }

            @Override
            public void take(IncomingMessage message) {
                accept(message);
            }
        };
    }

    ReceiveChannel channel(int source) {
        return channels[source];
    }

    // ------------------------------------------------------------------ draining

    /**
     * Moves every newly published slot into the matching engine, in each channel's send order,
     * and hands the drained slots back to each sender with one store of the drained ticket.
     * {@code selfPublished}: the next ticket this rank publishes to itself (nothing of its own
     * waits when the receive side is there already, which saves the device read).
     */
    boolean drain(long selfPublished) {
        boolean any = false;
        for (ReceiveChannel channel : channels) {
            if (channel.source == rank && selfPublished == channel.ring.next()) {
                continue;
            }
            any |= channel.ring.drain(channel.reader);
        }
        // The asynchronous mailbox fills only when pair mailboxes are full: while it stays empty it
        // is read every few rounds, not on every one.
        if (asyncRing != null && (asyncIdleRounds++ % ASYNC_POLL_INTERVAL == 0 || asyncRecentlyUsed)) {
            asyncRecentlyUsed = asyncRing.drain(asyncReader);
            any |= asyncRecentlyUsed;
        }
        return any;
    }

    /**
     * Read without the lock, as a hint: whether no channel has a slot published at its next
     * ticket. A stale read can only defer work to the next full round.
     */
    boolean nothingArrived() {
        for (ReceiveChannel channel : channels) {
            if (channel.ring.hasArrival()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The receiver's side of an asynchronous claim whose claimer died before publishing: the ring
     * would stop at that ticket for every sender. A claim marked by a rank that is gone, or one
     * left unmarked and unpublished for twice the lease while some rank is gone, is skipped.
     */
    void skipAbandonedAsyncClaim(long now) {
        if (asyncRing == null) {
            return;
        }
        if (!asyncRing.nextClaimedUnpublished()) {
            asyncStuckSince = 0;
            return;
        }
        if (asyncStuckSince == 0) {
            asyncStuckSince = now;
        }
        long mark = asyncRing.claimMarkAtNext();
        boolean markedByGone = false;
        for (int peer = 0; peer < channels.length && !markedByGone; peer++) {
            markedByGone = mark == SlotRing.claimMark(asyncRing.next(), peer) && peers.isGone(peer);
        }
        if (markedByGone || (now - asyncStuckSince > 2 * PeerWatch.HEARTBEAT_LEASE_NANOS && peers.anyGone())) {
            asyncRing.skipAbandoned();
            asyncStuckSince = 0;
            statistics.abandonedClaimsSkipped++;
        }
    }

    /** Hands arrivals to matching in channel order; an arrival ahead of its channel waits for the gap to fill. */
    void accept(IncomingMessage message) {
        ReceiveChannel channel = channels[message.source];
        if ((message.flags & FLAG_PREAMBLE) != 0) {
            deliver(message); // outside the channel's sequence: in ring order
            return;
        }
        long expected = channel.nextSequence;
        if (message.sequence == expected) {
            deliver(message);
            channel.nextSequence = log.skipConsumed(channel.source, expected + 1);
            TreeMap<Long, IncomingMessage> ahead = channel.ahead;
            IncomingMessage next;
            while (!ahead.isEmpty() && (next = ahead.remove(channel.nextSequence)) != null) {
                deliver(next);
                channel.nextSequence = log.skipConsumed(channel.source, channel.nextSequence + 1);
            }
            if (log.mayRepeat() && !ahead.isEmpty()) {
                ahead.headMap(channel.nextSequence).clear(); // consumed before a restart: already delivered or not needed
            }
        } else if (message.sequence > expected) {
            if (!message.isIndirect()) {
                delivery.spill(message); // its slot is handed back with this drain
            }
            if (channel.ahead.put(message.sequence, message) != null) {
                if (log.mayRepeat()) {
                    statistics.duplicatesDropped++; // replayed from the log and published as well
                    return;
                }
                throw slots.corrupt(message.slotAddress, "a second message with sequence number " + message.sequence);
            }
        } else if (log.mayRepeat()) {
            statistics.duplicatesDropped++; // a replayed message seen again in the ring, or republished
        } else {
            throw slots.corrupt(message.slotAddress, "sequence number " + message.sequence + " from rank " + channel.source
                    + ", already received up to " + (expected - 1));
        }
    }

    private void deliver(IncomingMessage message) {
        ReceiveChannel channel = channels[message.source];
        if ((message.flags & FLAG_FRAGMENT_NEXT) != 0) {
            appendFragment(channel, message);
            return;
        }
        if (channel.reassembly != null && (message.flags & FLAG_PREAMBLE) == 0) {
            throw slots.corrupt(message.slotAddress, "a new message from rank " + channel.source
                    + " before the last fragment of the previous one");
        }
        if ((message.flags & FLAG_FRAGMENT_FIRST) != 0) {
            message.reassembly = new Reassembly(message.messageLength, message.tag, message.source, message.length, message.sequence);
            channel.reassembly = message.reassembly;
        }
        statistics.messagesReceived++;
        MatchingEngine.PostedReceive posted = matching.takePosted(channel.source, message.tag, message.context, message.messageLength);
        if (posted == null) {
            matching.addUnexpected(new MatchingEngine.Arrival<>(new Envelope(channel.source, message.tag, message.context),
                    message.messageLength, message));
        }
        ReceiveRequest receive = posted == null ? null : ((ReceiveRequest.Posted) posted).request;
        if ((message.flags & FLAG_RENDEZVOUS) != 0) {
            singleCopy.answer(message, receive); // before the delivery below releases the offer's block
        }
        if (receive != null) {
            delivery.deliver(channel, receive, message);
            return;
        }
        delivery.holdOrSpill(message);
    }

    /** A later fragment: into the matched receive's buffer, or into staging memory until a receive matches. */
    private void appendFragment(ReceiveChannel channel, IncomingMessage fragment) {
        Reassembly r = channel.reassembly;
        if (r == null || fragment.messageLength != r.messageLength || fragment.tag != r.tag
                || fragment.length > r.messageLength - r.arrived) {
            throw slots.corrupt(fragment.slotAddress, "a fragment that continues no message in progress from rank " + channel.source);
        }
        if (fragment.isDirect() != r.directTarget >= 0
                || fragment.isDirect() && fragment.payloadAddress != r.directTarget + r.afterFirst()) {
            throw slots.corrupt(fragment.slotAddress, "a fragment at device offset " + fragment.payloadAddress
                    + " that does not continue the single-copy delivery into " + r.directTarget);
        }
        long offset = r.add(fragment.length, fragment.sequence);
        ReceiveRequest receive = channel.reassemblingInto;
        if (r.isComplete()) {
            channel.endReassembly(); // before the receive completes: its completion may post and drain again
        }
        delivery.appendFragment(r, receive, fragment, offset);
    }

    // ------------------------------------------------------------------ delivering

    /**
     * Posts {@code request}; it matches a message that has arrived already, or one drained now.
     * Posted before the drain, so that a single-copy offer already in the ring meets it (and is
     * accepted) instead of arriving unexpected; the order of matches is the same either way.
     */
    void post(ReceiveRequest request, long selfPublished) {
        MatchingEngine.Arrival<IncomingMessage> found = matching.post(request.posted);
        if (found != null) {
            IncomingMessage message = found.handle();
            delivery.deliver(channels[message.source], request, message);
        } else {
            drain(selfPublished);
            if (!request.isMatched()) {
                peers.failIfGone(request.posted.source(), request.group, "receive from");
            }
        }
    }

    // ------------------------------------------------------------------ restart, failures, close

    /** A restart: each pair ring resumes after the slots handed back; the log has what was taken and not consumed. */
    void resume(List<List<IncomingMessage>> replay) {
        for (ReceiveChannel channel : channels) {
            channel.ring.resumeAfterHandedBack();
            channel.nextSequence = log.skipConsumed(channel.source, 1);
        }
        for (List<IncomingMessage> messages : replay) {
            for (IncomingMessage message : messages) {
                accept(message);
            }
        }
    }

    /** Whether a fragmented message is being received into a matched receive (a checkpoint must wait). */
    boolean receiveInProgress() {
        for (ReceiveChannel channel : channels) {
            if (channel.reassemblingInto != null) {
                return true;
            }
        }
        return false;
    }

    /** Fails every receive that waits on a peer that has failed or finished; none can ever complete. */
    void failOnGonePeers() {
        List<MatchingEngine.PostedReceive> doomed = new ArrayList<>();
        for (MatchingEngine.PostedReceive posted : matching.postedReceives()) {
            if (peers.receiveDoomed(posted.source(), ((ReceiveRequest.Posted) posted).request.group)) {
                doomed.add(posted);
            }
        }
        for (MatchingEngine.PostedReceive posted : doomed) {
            matching.cancel(posted);
            ((ReceiveRequest.Posted) posted).request.failWith(peers.error(posted.source(), "receive from"));
        }
        for (ReceiveChannel channel : channels) {
            Reassembly r = channel.reassembly;
            if (r != null && peers.isGone(channel.source)) {
                // The rest of the message will never come.
                r.broken = true;
                ReceiveRequest receive = channel.reassemblingInto;
                channel.endReassembly();
                if (receive != null) {
                    receive.failWith(peers.error(channel.source, "receive of a fragmented message from"));
                }
            }
        }
    }

    /** At close: every receive still pending fails. */
    void failAll(Function<String, LockstepException> error) {
        List<MatchingEngine.PostedReceive> posted = new ArrayList<>();
        matching.postedReceives().forEach(posted::add);
        for (MatchingEngine.PostedReceive receive : posted) {
            matching.cancel(receive);
            ((ReceiveRequest.Posted) receive).request.failWith(error.apply("receive"));
        }
        for (ReceiveChannel channel : channels) {
            if (channel.reassemblingInto != null) {
                channel.reassemblingInto.failWith(error.apply("receive"));
            }
        }
    }
}
