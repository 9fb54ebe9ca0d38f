package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
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
 * {@link ExternalMemory}. The endpoint builds the rank's roles and runs their duty cycle; the
 * work is theirs:
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
 * <p>Every public operation and every {@link #progress()} round runs under one lock per rank.
 */
final class MailboxEndpoint implements ProgressEngine {
    /** Context id of the world communicator's point-to-point traffic; its collectives use the next one. */
    static final int WORLD_CONTEXT = 0;
    /** Idle progress rounds between two looks at whether the rank table is due for a read. */
    private static final int PEER_CHECK_INTERVAL = 64;
    /** Progress calls, counted without the lock; every this many take the lock whatever they see. */
    private static final int FULL_ROUND_INTERVAL = 4;

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final ReentrantLock lock = new ReentrantLock();
    private final MatchingEngine<IncomingMessage> matching;
    private final HeapAllocator heap;
    /** Back-off of waits: all ranks of a job are taken to share this host (the launcher's case; the thread world's). */
    private final IdleStrategy.Policy idlePolicy;
    private final RestartPolicy restartPolicy;
    private final TransportStatistics statistics = new TransportStatistics();
    private final PeerWatch peers;
    private final ChannelLog log;
    private final Sender sender;
    private final Receiver receiver;
    private final MailboxCheckpoints checkpoints;
    /** Buffers the program allocates, in this rank's heap partition; large messages into them go by {@link SingleCopy}. */
    private final DeviceBuffers deviceBuffers;
    private final SingleCopy singleCopy;
    private final boolean asyncMailboxes;
    private final CollectiveSettings collectiveSettings;
    private int progressCalls;
    /** Progress calls, counted without the lock (a hint). */
    private int quietRounds;
    private volatile boolean closed;
    private int nextFreeContext = WORLD_CONTEXT + 2;
    private Runnable closeAction = () -> { };

    /**
     * An endpoint for incarnation {@code incarnation} of {@code rank}. When the job checkpoints and
     * this is not a first start, it first recovers from the device: its committed checkpoint, its
     * log, and the logged messages sent to it that its checkpoint had not consumed.
     */
    MailboxEndpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, long fragmentLength, RestartPolicy restartPolicy) {
        MailboxConfig config = layout.config();
        this.device = device;
        this.restartPolicy = restartPolicy;
        this.layout = layout;
        this.rank = rank;
        this.size = config.worldSize();
        this.asyncMailboxes = config.asyncSlots() > 0;
        this.matching = new MatchingEngine<>(size);
        this.idlePolicy = IdleStrategy.Policy.forRanksOnThisHost(size);
        this.heap = new HeapAllocator(layout.heapPartition(rank), layout.heapAllocatorLength());
        // Fragments small enough that the receiver copies one while the sender writes the next,
        // and at most a quarter of the heap so that several are in flight.
        long maxFragment = Math.max(config.inlineCapacity() + 1,
                Math.min(fragmentLength, layout.heapPartitionLength() / 4) & -LayoutConstants.CACHE_LINE);
        this.deviceBuffers = new DeviceBuffers(device, layout, rank, heap,
                2 * LayoutConstants.align(HeapBlockDescriptor.blockLength(maxFragment), LayoutConstants.CACHE_LINE));
        this.singleCopy = new SingleCopy(device, layout, rank, statistics, deviceBuffers,
                // with the message log on, a message must stay in the sender's heap: no single copy
                config.checkpoints() ? 0 : MailboxOptions.DEFAULT_SINGLE_COPY_THRESHOLD, config.checkpoints());
        this.peers = new PeerWatch(device, layout, rank, restartPolicy);
        // Receivers that have ended for good: finished, or failed with no restart to wait for.
        MessageLog messageLog = config.checkpoints() ? MessageLog.open(device, layout, rank, incarnation, heap, statistics,
                dest -> peers.hasFinished(dest) || peers.isGone(dest) && !restartPolicy.restartOnFailure(), restartPolicy) : null;
        this.log = messageLog == null ? ChannelLog.NONE : messageLog;
        this.sender = new Sender(device, layout, rank, incarnation, maxFragment, heap, log, peers, singleCopy, statistics);
        this.receiver = new Receiver(device, layout, rank, matching, log, peers, singleCopy, statistics);
        this.collectiveSettings = new CollectiveSettings(device, log.retainsMessages(), restartPolicy.faults().collectiveFaults());
        Recovery recovery = messageLog == null ? null : recover(messageLog);
        this.checkpoints = new MailboxCheckpoints(new MailboxCheckpoints.Transport() {
            @Override
            public void restored() {
                MailboxEndpoint.this.restored();
            }

            @Override
            public Checkpoints.CheckpointResult commit(MemorySegment state, long stateBytes) {
                return checkpoint(state, stateBytes);
            }
        }, recovery, incarnation);
        peers.register(incarnation);
    }

    /**
     * A restart: reads the checkpoint and the log, and sets every cursor from them. Rings resume
     * where the device says: this rank's receive side after the slots it had handed back (what it
     * had taken but not consumed is in the log), its send side after the last slot it published.
     */
    private Recovery recover(MessageLog messageLog) {
        Recovery recovery = messageLog.recover();
        sender.resume(messageLog, recovery.sentAtCheckpoint);
        receiver.resume(recovery.replay);
        return recovery;
    }

    /**
     * The program restored its checkpoint: from here on it re-executes what its predecessor did
     * after that checkpoint, so its sends take the channel's sequence numbers again (and those its
     * predecessor placed are dropped as re-sends).
     */
    void restored() {
        locked(() -> {
            log.endPreamble();
            return null;
        });
    }

    /** How this rank's communicators run their collectives. */
    CollectiveSettings collectiveSettings() {
        return collectiveSettings;
    }

    // ------------------------------------------------------------------ peers

    /** Whether world rank {@code peer} is known (from the last peer check) to have failed or finished. */
    boolean isPeerGone(int peer) {
        return locked(() -> peers.isGone(peer));
    }

    /** The error of an operation that waited on world rank {@code peer}, which is gone. */
    ProcessFailedException peerGoneError(int peer, String what) {
        return locked(() -> peers.error(peer, what));
    }

    /** The liveness lease on this host ({@link PeerWatch#livenessLease}). */
    void livenessLease(long nanos) {
        peers.livenessLease(nanos);
    }

    /** Checks whether this host's peers' processes still exist; the process's heartbeat thread calls it. */
    void checkPeerProcesses() {
        peers.checkPeerProcesses();
    }

    /** This rank's program has ended (normally or not); tells the others through the rank table. */
    void markEnded(boolean failed) {
        peers.markEnded(failed);
    }

    /** Advances this rank's heartbeat word; called by the process's heartbeat thread. */
    void beat(long beat) {
        peers.beat(beat);
    }

    // ------------------------------------------------------------------ point-to-point

    /**
     * Starts a send of {@code bytes} bytes to world rank {@code dest} on {@code context}; the
     * communicator has checked the arguments and translated the rank.
     */
    Request startSend(MemorySegment buffer, long bytes, int dest, int tag, int context, boolean synchronous, int reportedDest) {
        checkOpen();
        sender.checkFits(bytes, synchronous, reportedDest);
        SendRequest request = new SendRequest(this, buffer, bytes, dest, tag, context, synchronous, reportedDest);
        lock.lock();
        try {
            checkOpen();
            sender.start(request);
        } finally {
            lock.unlock();
        }
        return request;
    }

    /**
     * Posts a receive from world rank {@code source} (or {@code ANY_SOURCE}) on {@code context};
     * the communicator has checked the arguments and translated the rank.
     */
    Request startReceive(MemorySegment buffer, long capacity, int source, int tag, int context, Group group) {
        checkOpen();
        lock.lock();
        ReceiveRequest request = null;
        try {
            checkOpen();
            long replayed = 0;
            if (source == org.lockstep.api.Communicator.ANY_SOURCE) {
                // A restarted rank's wildcard receive matches the sender its predecessor's matched, as logged.
                long[] logged = log.replayedWildcard();
                if (logged != null) {
                    source = (int) logged[0];
                    replayed = logged[1];
                }
            }
            request = new ReceiveRequest(this, this::cancelReceive, buffer, capacity, source, tag, context, group);
            // Before its checkpoint is restored, a restarted rank's wildcard matches are not the resumed execution's.
            request.wildcard = log.logsWildcards() && (replayed > 0 || source == org.lockstep.api.Communicator.ANY_SOURCE);
            request.replayedSequence = replayed;
            receiver.post(request, sender.channel(rank).ring.next());
        } catch (RuntimeException failed) {
            if (request != null) {
                matching.cancel(request.posted);
            }
            throw failed;
        } finally {
            lock.unlock();
        }
        return request;
    }

    /** Blocks until a message from {@code source} (world rank or ANY_SOURCE) on {@code context} is there. */
    Status probe(int source, int tag, int context, Group group) {
        IdleStrategy idle = newIdleStrategy();
        while (true) {
            Optional<Status> found = iprobe(source, tag, context, group);
            if (found.isPresent()) {
                return found.get();
            }
            locked(() -> {
                peers.failIfGone(source, group, "probe for");
                return null;
            });
            idle.idle();
        }
    }

    /** The status of a matching message if one is there now; the source in group ranks. */
    Optional<Status> iprobe(int source, int tag, int context, Group group) {
        checkOpen();
        lock.lock();
        try {
            checkOpen();
            progressLocked();
            MatchingEngine.Arrival<IncomingMessage> found = matching.probe(source, tag, context);
            return found == null ? Optional.empty()
                    : Optional.of(Status.of(group.rankOf(found.envelope().source()), found.envelope().tag(), found.byteLength()));
        } finally {
            lock.unlock();
        }
    }

    private boolean cancelReceive(ReceiveRequest request) {
        return locked(() -> matching.cancel(request.posted));
    }

    // ------------------------------------------------------------------ checkpoints

    /** Commits a checkpoint of this rank: cursors plus {@code state}. */
    Checkpoints.CheckpointResult checkpoint(MemorySegment state, long stateBytes) {
        checkOpen();
        lock.lock();
        try {
            checkOpen();
            progressLocked();
            IdleStrategy idle = new IdleStrategy();
            long deadline = System.nanoTime() + restartPolicy.logFullWait().toNanos();
            while (sender.pendingSendCount() > 0 && System.nanoTime() - deadline < 0) {
                lock.unlock();
                try {
                    idle.idle();
                } finally {
                    lock.lock();
                }
                progressLocked();
            }
            if (sender.pendingSendCount() > 0 || matching.postedReceives().iterator().hasNext() || receiver.receiveInProgress()) {
                throw new LockstepException(ErrorClass.PENDING, "rank " + rank + ": checkpoint with requests of this rank pending ("
                        + sender.pendingSendCount() + " sends not yet placed, posted or partly received receives); checkpoint where none is");
            }
            long written = log.commit(sender.nextSequences(), state);
            log.reclaim();
            return new Checkpoints.CheckpointResult(log.committedEpoch(), true, stateBytes, written);
        } finally {
            lock.unlock();
        }
    }

    /** This rank's checkpoints (the declared no-op kind when the job does not checkpoint). */
    Checkpoints checkpoints() {
        return log.retainsMessages() ? checkpoints : Checkpoints.unsupported();
    }

    /** The message log, for tests; null without checkpoints. */
    MessageLog messageLog() {
        return log instanceof MessageLog messageLog ? messageLog : null;
    }

    // ------------------------------------------------------------------ progress

    /** Waits spin for long while this host's ranks have a core each (see {@link IdleStrategy.Policy}). */
    @Override
    public IdleStrategy newIdleStrategy() {
        return new IdleStrategy(idlePolicy);
    }

    @Override
    public boolean progress() {
        // A waiting rank spins here: most rounds only look for a new slot, without taking the lock.
        // Read without the lock, as a hint: a stale read only defers work to the next full round,
        // which also polls the asynchronous mailbox and checks the peers.
        if ((++quietRounds & (FULL_ROUND_INTERVAL - 1)) != 0 && sender.pendingSendCount() == 0 && !sender.awaitsReleases()
                && receiver.nothingArrived()) {
            return false;
        }
        lock.lock();
        try {
            return progressLocked();
        } finally {
            lock.unlock();
        }
    }

    /** One duty cycle: drain arrivals, see releases, place what waits, reclaim the log, and now and then watch the peers. */
    private boolean progressLocked() {
        if (closed) {
            return false;
        }
        boolean any = receiver.drain(sender.channel(rank).ring.next());
        if (sender.awaitsReleases()) {
            any |= sender.reclaimReleased();
        }
        any |= sender.placePending();
        any |= log.reclaimWhenIdle(progressCalls);
        if (!any && (++progressCalls % PEER_CHECK_INTERVAL == 0) && peers.checkDue()) {
            checkPeers();
        }
        return any;
    }

    /** Reads the rank table and fails the requests that wait on a rank that has failed or finished. */
    private void checkPeers() {
        long now = System.nanoTime();
        boolean changed = peers.check(now);
        if (asyncMailboxes && (peers.anyGone() || changed)) {
            receiver.skipAbandonedAsyncClaim(now);
        }
        if (!changed) {
            if (peers.anyGone()) {
                // A request started after the change must not wait forever either.
                failRequestsOnGonePeers();
            }
            return;
        }
        peers.noteAnyGone();
        // Whatever a peer published before it ended is visible now (its state was read with acquire).
        receiver.drain(sender.channel(rank).ring.next());
        failRequestsOnGonePeers();
    }

    /** Fails every request that waits on a peer that has failed or finished; none can ever complete. */
    private void failRequestsOnGonePeers() {
        // What the peer released before it ended is visible (its state was read with acquire):
        // a synchronous send it matched has completed, not failed.
        sender.reclaimReleased();
        receiver.failOnGonePeers();
        sender.failOnGonePeers();
    }

    // ------------------------------------------------------------------ memory, lifecycle, statistics

    /** Device memory from this rank's heap partition ({@link DeviceBuffers}): receives into it may take a single copy. */
    MemorySegment allocate(long byteSize) {
        checkOpen();
        return locked(() -> {
            checkOpen();
            return deviceBuffers.allocate(byteSize, sender::reclaimReleased);
        });
    }

    /** Like {@link #allocate}, but null instead of {@code NO_MEM} when the partition has no room. */
    MemorySegment tryAllocate(long byteSize) {
        try {
            return allocate(byteSize);
        } catch (LockstepException e) {
            if (e.errorClass() == ErrorClass.NO_MEM) {
                return null;
            }
            throw e;
        }
    }

    /** Where the first {@code bytes} bytes of {@code buffer} lie in the device if in one of this rank's buffers, else -1. */
    long deviceOffset(MemorySegment buffer, long bytes) {
        return locked(() -> deviceBuffers.deviceOffset(buffer, bytes));
    }

    void free(MemorySegment segment) {
        locked(() -> {
            deviceBuffers.free(segment);
            return null;
        });
    }

    /** Closes the world communicator of this rank: pending requests fail, allocations are freed. */
    void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                // Requests still pending can never complete: they fail, so no thread waits on them forever.
                receiver.failAll(this::closedError);
                sender.failAll(this::closedError);
            }
        } finally {
            lock.unlock();
        }
        locked(() -> {
            deviceBuffers.forgetAll();
            return null;
        });
        closeAction.run();
    }

    private LockstepException closedError(String what) {
        return new LockstepException(ErrorClass.COMM, "rank " + rank + ": " + what + " pending when the communicator was closed");
    }

    /** What {@link #close()} does after closing the communicator (a process rank leaves its world). */
    void onClose(Runnable action) {
        this.closeAction = action;
    }

    /** {@code action}'s result, run under this rank's lock (for the calls off the message path). */
    private <T> T locked(java.util.function.Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator of rank " + rank + " is closed");
        }
    }

    /** Bytes of this rank's heap partition (log rings included) held by payloads not yet released by their receivers. */
    long heapBytesInUse() {
        return locked(() -> {
            sender.reclaimReleased();
            return heap.bytesInUse() + log.ringBytesInUse();
        });
    }

    TransportStatistics statistics() {
        return statistics;
    }

    /** The single-copy settings of this rank (threshold, test hooks). */
    SingleCopy singleCopy() {
        return singleCopy;
    }

    /** A context id no communicator of this rank uses yet (communicators take two: point-to-point and collective). */
    int nextFreeContext() {
        return nextFreeContext;
    }

    /** Contexts below {@code limit} are taken (after the ranks of a communicator agreed on one). */
    void reserveContextsBelow(int limit) {
        nextFreeContext = Math.max(nextFreeContext, limit);
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
}
