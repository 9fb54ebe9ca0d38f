package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.MatchingEngine;

/**
 * What this rank's communicators ask of the endpoint: point-to-point (send, receive, probe), a
 * checkpoint's commit, device buffers, and context ids. Every operation runs under the
 * {@link EndpointCore}'s lock; the communicator has checked the arguments and translated ranks to
 * world ranks.
 */
final class EndpointOperations {
    /** Context id of the world communicator's point-to-point traffic; its collectives use the next one. */
    static final int WORLD_CONTEXT = 0;

    private final EndpointCore core;
    private final DeviceBuffers deviceBuffers;
    private final HeapAllocator heap;
    private final RestartPolicy restartPolicy;
    /** Takes a receive out of the matching engine: one object for every receive (none allocated per receive). */
    private final Predicate<ReceiveRequest> canceller = this::cancelReceive;
    private int nextFreeContext = WORLD_CONTEXT + 2;

    EndpointOperations(EndpointCore core, DeviceBuffers deviceBuffers, HeapAllocator heap, RestartPolicy restartPolicy) {
        this.core = core;
        this.deviceBuffers = deviceBuffers;
        this.heap = heap;
        this.restartPolicy = restartPolicy;
    }

    // ------------------------------------------------------------------ point-to-point

    /** Starts a send of {@code bytes} bytes to world rank {@code dest} on {@code context}. */
    Request startSend(MemorySegment buffer, long bytes, int dest, int tag, int context, boolean synchronous, int reportedDest) {
        core.checkOpen();
        core.sender.checkFits(bytes, synchronous, reportedDest);
        SendRequest request = new SendRequest(core, buffer, bytes, dest, tag, context, synchronous, reportedDest);
        core.lock.lock();
        try {
            core.checkOpen();
            core.sender.start(request);
        } finally {
            core.lock.unlock();
        }
        return request;
    }

    /**
     * A blocking send: a message that travels in place and finds room is published at once, with
     * no request ({@link Sender#placeInPlaceNow}); any other is started and awaited.
     */
    void send(MemorySegment buffer, long bytes, int dest, int tag, int context, boolean synchronous, int reportedDest) {
        if (!synchronous && bytes <= core.sender.inlineCapacity()) {
            core.checkOpen();
            core.lock.lock();
            try {
                core.checkOpen();
                if (core.sender.placeInPlaceNow(buffer, bytes, dest, tag, context)) {
                    return;
                }
            } finally {
                core.lock.unlock();
            }
        }
        startSend(buffer, bytes, dest, tag, context, synchronous, reportedDest).await();
    }

    /** Posts a receive from world rank {@code source} (or {@code ANY_SOURCE}) on {@code context}. */
    Request startReceive(MemorySegment buffer, long capacity, int source, int tag, int context, Group group) {
        core.checkOpen();
        core.lock.lock();
        ReceiveRequest request = null;
        try {
            core.checkOpen();
            long replayed = 0;
            ChannelLog log = core.log;
            if (source == Communicator.ANY_SOURCE) {
                // A restarted rank's wildcard receive matches the sender its predecessor's matched, as logged.
                long[] logged = log.replayedWildcard();
                if (logged != null) {
                    source = (int) logged[0];
                    replayed = logged[1];
                }
            }
            request = new ReceiveRequest(core, canceller, buffer, capacity, source, tag, context, group);
            // Before its checkpoint is restored, a restarted rank's wildcard matches are not the resumed execution's.
            request.wildcard = log.logsWildcards() && (replayed > 0 || source == Communicator.ANY_SOURCE);
            request.replayedSequence = replayed;
            core.receiver.post(request, core.sender.channel(core.rank).ring.next());
        } catch (RuntimeException failed) {
            if (request != null) {
                core.matching.cancel(request.posted);
            }
            throw failed;
        } finally {
            core.lock.unlock();
        }
        return request;
    }

    /** Blocks until a message from {@code source} (world rank or ANY_SOURCE) on {@code context} is there. */
    Status probe(int source, int tag, int context, Group group) {
        IdleStrategy idle = core.newIdleStrategy();
        while (true) {
            // Gone is judged before the probe: a peer that sent and then ended has its message seen first.
            LockstepException gone = core.locked(() -> {
                try {
                    core.peers.failIfGone(source, group, "probe for");
                    return null;
                } catch (LockstepException e) {
                    return e;
                }
            });
            Optional<Status> found = iprobe(source, tag, context, group);
            if (found.isPresent()) {
                return found.get();
            }
            if (gone != null) {
                throw gone;
            }
            idle.idle();
        }
    }

    /** Fails if world rank {@code peer} is known to have failed or finished (for a wait that polls, see {@code failIfGone}). */
    void failIfGone(int peer, Group group, String what) {
        core.checkOpen();
        core.locked(() -> {
            core.peers.failIfGone(peer, group, what);
            return null;
        });
    }

    /** The status of a matching message if one is there now; the source in group ranks. */
    Optional<Status> iprobe(int source, int tag, int context, Group group) {
        core.checkOpen();
        core.lock.lock();
        try {
            core.checkOpen();
            core.progressLocked();
            MatchingEngine.Arrival<IncomingMessage> found = core.matching.probe(source, tag, context);
            return found == null ? Optional.empty()
                    : Optional.of(Status.of(group.rankOf(found.envelope().source()), found.envelope().tag(), found.byteLength()));
        } finally {
            core.lock.unlock();
        }
    }

    private boolean cancelReceive(ReceiveRequest request) {
        return core.locked(() -> core.matching.cancel(request.posted));
    }

    // ------------------------------------------------------------------ checkpoints

    /** Commits a checkpoint of this rank: cursors plus the state section ({@code state}'s pieces), once no request of this rank is pending. */
    Checkpoints.CheckpointResult commit(List<MemorySegment> state, long stateBytes) {
        core.checkOpen();
        core.lock.lock();
        try {
            core.checkOpen();
            core.progressLocked();
            Sender sender = core.sender;
            IdleStrategy idle = new IdleStrategy();
            long deadline = System.nanoTime() + restartPolicy.logFullWait().toNanos();
            while (sender.pendingSendCount() > 0 && System.nanoTime() - deadline < 0) {
                core.lock.unlock();
                try {
                    idle.idle();
                } finally {
                    core.lock.lock();
                }
                core.progressLocked();
            }
            if (sender.pendingSendCount() > 0 || core.matching.postedReceives().iterator().hasNext() || core.receiver.receiveInProgress()) {
                throw new LockstepException(ErrorClass.PENDING, "rank " + core.rank + ": checkpoint with requests of this rank pending ("
                        + sender.pendingSendCount() + " sends not yet placed, posted or partly received receives); checkpoint where none is");
            }
            ChannelLog log = core.log;
            long written = log.commit(sender.nextSequences(), state);
            log.reclaim();
            return new Checkpoints.CheckpointResult(log.committedEpoch(), true, stateBytes, written);
        } finally {
            core.lock.unlock();
        }
    }

    // ------------------------------------------------------------------ device buffers

    /** Device memory from this rank's heap partition ({@link DeviceBuffers}): receives into it may take a single copy. */
    MemorySegment allocate(long byteSize) {
        core.checkOpen();
        return core.locked(() -> {
            core.checkOpen();
            return deviceBuffers.allocate(byteSize, core.sender::reclaimReleased);
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
        return core.locked(() -> deviceBuffers.deviceOffset(buffer, bytes));
    }

    void free(MemorySegment segment) {
        core.locked(() -> {
            deviceBuffers.free(segment);
            return null;
        });
    }

    /** Bytes of this rank's heap partition (log rings included) held by payloads not yet released by their receivers. */
    long heapBytesInUse() {
        return core.locked(() -> {
            core.sender.reclaimReleased();
            return heap.bytesInUse() + core.log.ringBytesInUse();
        });
    }

    // ------------------------------------------------------------------ contexts

    /** A context id no communicator of this rank uses yet (communicators take two: point-to-point and collective). */
    int nextFreeContext() {
        return nextFreeContext;
    }

    /** Contexts below {@code limit} are taken (after the ranks of a communicator agreed on one). */
    void reserveContextsBelow(int limit) {
        nextFreeContext = Math.max(nextFreeContext, limit);
    }
}
