package org.lockstep.pcie.mailbox;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.collective.DeviceCollectiveProgress;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.MatchingEngine;
import org.lockstep.spi.messaging.ProgressEngine;

/**
 * The locked core of one rank's endpoint: the one lock every operation takes, whether the rank's
 * world communicator is closed, and the {@link #progress()} duty cycle over the roles (drain
 * arrivals, see releases, place what waits, reclaim the log, now and then watch the peers). The
 * communicator-facing operations ({@link EndpointOperations}) and the lifecycle
 * ({@link EndpointLifecycle}) both run over it; requests wait on it as their progress engine.
 */
final class EndpointCore implements ProgressEngine {
    /** Idle progress rounds between two looks at whether the rank table is due for a read. */
    private static final int PEER_CHECK_INTERVAL = 64;
    /** Progress calls, counted without the lock; every this many take the lock whatever they see. */
    private static final int FULL_ROUND_INTERVAL = 4;

    final int rank;
    final ReentrantLock lock = new ReentrantLock();
    final MatchingEngine<IncomingMessage> matching;
    final Sender sender;
    final Receiver receiver;
    final PeerWatch peers;
    final ChannelLog log;
    /** Back-off of waits: all ranks of a job are taken to share this host (the launcher's case; the thread world's). */
    private final IdleStrategy.Policy idlePolicy;
    private final boolean asyncMailboxes;
    /** This rank's non-blocking device collectives, which each round advances (outside the lock: they touch no role). */
    private final DeviceCollectiveProgress deviceCollectives;
    private int progressCalls;
    /** Progress calls, counted without the lock (a hint). */
    private int quietRounds;
    private volatile boolean closed;

    EndpointCore(int rank, IdleStrategy.Policy idlePolicy, MatchingEngine<IncomingMessage> matching, Sender sender, Receiver receiver, PeerWatch peers,
                 ChannelLog log, boolean asyncMailboxes, DeviceCollectiveProgress deviceCollectives) {
        this.rank = rank;
        this.matching = matching;
        this.sender = sender;
        this.receiver = receiver;
        this.peers = peers;
        this.log = log;
        this.asyncMailboxes = asyncMailboxes;
        this.deviceCollectives = deviceCollectives;
        this.idlePolicy = idlePolicy;
    }

    /** Waits spin for long while this host's ranks have a core each (see {@link IdleStrategy.Policy}). */
    @Override
    public IdleStrategy newIdleStrategy() {
        return new IdleStrategy(idlePolicy);
    }

    @Override
    public boolean progress() {
        boolean collectivesMoved = !closed && deviceCollectives.advance();
        // A waiting rank spins here: most rounds only look for a new slot, without taking the lock.
        // Read without the lock, as a hint: a stale read only defers work to the next full round,
        // which also polls the asynchronous mailbox and checks the peers.
        if ((++quietRounds & (FULL_ROUND_INTERVAL - 1)) != 0 && sender.pendingSendCount() == 0 && !sender.awaitsReleases()
                && receiver.nothingArrived()) {
            return collectivesMoved;
        }
        lock.lock();
        try {
            return progressLocked() | collectivesMoved;
        } finally {
            lock.unlock();
        }
    }

    /** One duty cycle, under the lock: drain arrivals, see releases, place what waits, reclaim the log, and now and then watch the peers. */
    boolean progressLocked() {
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

    /** {@code action}'s result, run under this rank's lock (for the calls off the message path). */
    <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** Throws unless the world communicator of this rank is open. */
    void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator of rank " + rank + " is closed");
        }
    }

    /**
     * Marks the rank closed, under the lock; returns whether this call closed it (a second close
     * finds it closed). The duty cycle does nothing from here on.
     */
    boolean closeLocked() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }
}
