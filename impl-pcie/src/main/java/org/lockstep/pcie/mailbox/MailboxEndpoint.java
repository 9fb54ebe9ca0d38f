package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.api.Checkpoints;
import org.lockstep.pcie.collective.DeviceCollectiveProgress;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.MatchingEngine;
import org.lockstep.spi.messaging.ProgressEngine;

/**
 * One rank's end of the mailbox transport of seed 001: MPI point-to-point over any
 * {@link ExternalMemory}. The endpoint builds the rank's roles over one locked core and hands out
 * its two faces; the work is the roles':
 *
 * <ul>
 *   <li>the {@link Sender} places messages into slots of the pair mailboxes
 *       ({@link org.lockstep.pcie.ring.SlotRing}) — in place, through the heap, in fragments, or
 *       by single copy — and reclaims what receivers release;</li>
 *   <li>the {@link Receiver} drains published slots in each channel's order, matches, delivers,
 *       spills and reassembles, and hands payloads back;</li>
 *   <li>the {@link PeerWatch} keeps this rank's liveness in the rank table and finds peers that
 *       have failed or finished; the requests that wait on them then fail;</li>
 *   <li>the {@link ChannelLog} keeps what a restart needs: nothing without checkpoints, the
 *       {@link MessageLog} with them (the device is then the message log; a new incarnation
 *       recovers in this constructor).</li>
 * </ul>
 *
 * <p>The {@link EndpointCore} holds the one lock per rank and the {@code progress()} duty cycle;
 * {@link #operations()} is what the rank's communicators call (point-to-point, checkpoint commit,
 * device buffers, contexts), {@link #lifecycle()} what its world calls (attach, liveness, close).
 */
final class MailboxEndpoint {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final TransportStatistics statistics = new TransportStatistics();
    private final EndpointCore core;
    private final EndpointOperations operations;
    private final EndpointLifecycle lifecycle;
    private final MailboxCheckpoints checkpoints;
    private final SingleCopy singleCopy;
    private final CollectiveSettings collectiveSettings;

    /**
     * An endpoint for incarnation {@code incarnation} of {@code rank}. When the job checkpoints and
     * this is not a first start, it first recovers from the device: its committed checkpoint, its
     * log, and the logged messages sent to it that its checkpoint had not consumed.
     */
    MailboxEndpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, long fragmentLength, RestartPolicy restartPolicy) {
        MailboxConfig config = layout.config();
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = config.worldSize();
        MatchingEngine<IncomingMessage> matching = new MatchingEngine<>(size);
        HeapAllocator heap = new HeapAllocator(layout.heapPartition(rank), layout.heapAllocatorLength());
        // Fragments small enough that the receiver copies one while the sender writes the next,
        // and at most a quarter of the heap so that several are in flight.
        long maxFragment = Math.max(config.inlineCapacity() + 1,
                Math.min(fragmentLength, layout.heapPartitionLength() / 4) & -LayoutConstants.CACHE_LINE);
        DeviceBuffers deviceBuffers = new DeviceBuffers(device, layout, rank, heap,
                2 * LayoutConstants.align(HeapBlockDescriptor.blockLength(maxFragment), LayoutConstants.CACHE_LINE));
        this.singleCopy = new SingleCopy(device, layout, rank, statistics, deviceBuffers,
                // with the message log on, a message must stay in the sender's heap: no single copy
                config.checkpoints() ? 0 : MailboxOptions.DEFAULT_SINGLE_COPY_THRESHOLD, config.checkpoints());
        PeerWatch peers = new PeerWatch(device, layout, rank, restartPolicy);
        // Receivers that have ended for good: finished, or failed with no restart to wait for.
        MessageLog messageLog = config.checkpoints() ? openMessageLog(device, layout, rank, incarnation, heap, statistics,
                dest -> peers.hasFinished(dest) || peers.isGone(dest) && !restartPolicy.restartOnFailure(), restartPolicy) : null;
        ChannelLog log = messageLog == null ? ChannelLog.NONE : messageLog;
        Sender sender = new Sender(device, layout, rank, maxFragment, heap, log, peers, singleCopy, statistics);
        Receiver receiver = new Receiver(device, layout, rank, matching, log, peers, singleCopy, statistics);
        DeviceCollectiveProgress deviceCollectives = new DeviceCollectiveProgress();
        // the formatter's judgement (the superblock's flag), so that every rank of the device waits alike
        IdleStrategy.Policy idlePolicy = DeviceFormat.ranksShareCores(device) ? IdleStrategy.Policy.OVERSUBSCRIBED : IdleStrategy.Policy.DEDICATED;
        this.core = new EndpointCore(rank, idlePolicy, matching, sender, receiver, peers, log, config.asyncSlots() > 0, deviceCollectives);
        this.operations = new EndpointOperations(core, deviceBuffers, heap, restartPolicy);
        this.lifecycle = new EndpointLifecycle(core, deviceBuffers);
        this.collectiveSettings = new CollectiveSettings(device, log.retainsMessages(), restartPolicy.faults().collectiveFaults(),
                deviceCollectives);
        Recovery recovery = messageLog == null ? null : recover(messageLog, sender, receiver);
        this.checkpoints = new MailboxCheckpoints(new MailboxCheckpoints.Transport() {
            @Override
            public void restored() {
                lifecycle.restored();
            }

            @Override
            public Checkpoints.CheckpointResult commit(List<MemorySegment> state, long stateBytes) {
                return operations.commit(state, stateBytes);
            }
        }, recovery, incarnation);
        lifecycle.attach(incarnation);
    }

    /**
     * A restart: reads the checkpoint and the log, and sets every cursor from them. Rings resume
     * where the device says: this rank's receive side after the slots it had handed back (what it
     * had taken but not consumed is in the log), its send side after the last slot it published.
     */
    private static Recovery recover(MessageLog messageLog, Sender sender, Receiver receiver) {
        Recovery recovery = messageLog.recover();
        sender.resume(messageLog, recovery.sentAtCheckpoint);
        receiver.resume(recovery.replay);
        return recovery;
    }

    /** What this rank's communicators call: point-to-point, checkpoint commit, device buffers, contexts. */
    EndpointOperations operations() {
        return operations;
    }

    /** What this rank's world calls: attach, liveness, close. */
    EndpointLifecycle lifecycle() {
        return lifecycle;
    }

    /** The progress engine of this rank's requests and waits (the locked core's duty cycle). */
    ProgressEngine progressEngine() {
        return core;
    }

    /** How this rank's communicators run their collectives. */
    CollectiveSettings collectiveSettings() {
        return collectiveSettings;
    }

    /** This rank's checkpoints (the declared no-op kind when the job does not checkpoint). */
    Checkpoints checkpoints() {
        return core.log.retainsMessages() ? checkpoints : Checkpoints.unsupported();
    }

    /** The message log, for tests; null without checkpoints. */
    MessageLog messageLog() {
        return core.log instanceof MessageLog messageLog ? messageLog : null;
    }

    TransportStatistics statistics() {
        return statistics;
    }

    /** The single-copy settings of this rank (threshold, test hooks). */
    SingleCopy singleCopy() {
        return singleCopy;
    }

    ExternalMemory device() {
        return device;
    }

    /** The device, for tests that damage it on purpose. */
    ExternalMemory deviceForTests() {
        return device;
    }

    MailboxLayout layout() {
        return layout;
    }

    /** World rank of this endpoint. */
    int rank() {
        return rank;
    }

    /** World size. */
    int size() {
        return size;
    }

    @Override
    public String toString() {
        return "MailboxEndpoint[rank " + rank + " of " + size + " on " + device.name() + "]";
    }

    /** The message log of a job that checkpoints: the kit's faulty one when its self-test asks for it ({@link TransportFaults}). */
    private static MessageLog openMessageLog(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, HeapAllocator heap,
                                             TransportStatistics statistics, IntPredicate gone, RestartPolicy policy) {
        return policy.faults().breaksTheLog()
                ? new FaultyMessageLog(device, layout, rank, incarnation, heap, statistics, gone, policy.logFullWait(), policy.faults())
                : new MessageLog(device, layout, rank, incarnation, heap, statistics, gone, policy.logFullWait());
    }
}
