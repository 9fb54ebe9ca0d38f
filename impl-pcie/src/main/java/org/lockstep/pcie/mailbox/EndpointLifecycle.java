package org.lockstep.pcie.mailbox;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;

/**
 * The lifecycle of one rank's endpoint, apart from what its communicators ask: attaching the
 * incarnation to the rank table, the restored checkpoint's end of the preamble, liveness (this
 * rank's heartbeat and end, its peers' failures as the {@link PeerWatch} sees them), and close.
 * Runs over the {@link EndpointCore}'s lock, except the heartbeat thread's calls, which the
 * {@link PeerWatch} makes safe without it.
 */
final class EndpointLifecycle {
    private final EndpointCore core;
    private final DeviceBuffers deviceBuffers;
    private Runnable closeAction = () -> { };

    EndpointLifecycle(EndpointCore core, DeviceBuffers deviceBuffers) {
        this.core = core;
        this.deviceBuffers = deviceBuffers;
    }

    /** Enters incarnation {@code incarnation} of this rank in the rank table: peers see it alive from here on. */
    void attach(long incarnation) {
        core.peers.register(incarnation);
    }

    /**
     * The program restored its checkpoint: from here on it re-executes what its predecessor did
     * after that checkpoint, so its sends take the channel's sequence numbers again (and those its
     * predecessor placed are dropped as re-sends).
     */
    void restored() {
        core.locked(() -> {
            core.log.endPreamble();
            return null;
        });
    }

    // ------------------------------------------------------------------ liveness

    /** Whether world rank {@code peer} is known (from the last peer check) to have failed or finished. */
    boolean isPeerGone(int peer) {
        return core.locked(() -> core.peers.isGone(peer));
    }

    /** The error of an operation that waited on world rank {@code peer}, which is gone. */
    ProcessFailedException peerGoneError(int peer, String what) {
        return core.locked(() -> core.peers.error(peer, what));
    }

    /** The liveness lease on this host ({@link PeerWatch#livenessLease}). */
    void livenessLease(long nanos) {
        core.peers.livenessLease(nanos);
    }

    /** Checks whether this host's peers' processes still exist; the process's heartbeat thread calls it. */
    void checkPeerProcesses() {
        core.peers.checkPeerProcesses();
    }

    /** Advances this rank's heartbeat word; called by the process's heartbeat thread. */
    void beat(long beat) {
        core.peers.beat(beat);
    }

    /** This rank's program has ended (normally or not); tells the others through the rank table. */
    void markEnded(boolean failed) {
        core.peers.markEnded(failed);
    }

    // ------------------------------------------------------------------ close

    /** Closes the world communicator of this rank: pending requests fail, allocations are freed. */
    void close() {
        core.lock.lock();
        try {
            if (core.closeLocked()) {
                // Requests still pending can never complete: they fail, so no thread waits on them forever.
                core.receiver.failAll(this::closedError);
                core.sender.failAll(this::closedError);
            }
            deviceBuffers.forgetAll();
        } finally {
            core.lock.unlock();
        }
        closeAction.run();
    }

    /** What {@link #close()} does after closing the communicator (a process rank leaves its world). */
    void onClose(Runnable action) {
        this.closeAction = action;
    }

    private LockstepException closedError(String what) {
        return new LockstepException(ErrorClass.COMM, "rank " + core.rank + ": " + what + " pending when the communicator was closed");
    }
}
