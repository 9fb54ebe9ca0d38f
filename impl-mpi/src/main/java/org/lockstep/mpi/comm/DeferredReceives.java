package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.mpi.binding.NativeMemory;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.messaging.ProgressAgents;

/**
 * The non-blocking receives of one communicator on a library whose truncated receives keep nothing
 * (MPICH 4.0: no byte and no length, where the API promises the first part and the length). A
 * receive is not posted to the library: it waits here, in posting order, and takes its message by
 * {@code MPI_Improbe} + {@code MPI_Mrecv} into a buffer as long as the message
 * ({@link NativePointToPoint#receiveMatched}). A message goes to the earliest pending receive that
 * accepts it, and while one is pending, blocking receives queue behind it and probes see only what
 * none of them takes, as MPI orders posted receives (MPI 4.1 §3.5, §3.8.1).
 *
 * <p>Nothing is posted, so a sender's rendezvous waits until the receiver matches: receives are
 * matched in this communicator's waits and tests, in every test of a native request, and, while
 * the rank is blocked in a native call, by {@link BlockedCallProgress}'s helper (which is why this
 * needs {@code MPI_THREAD_MULTIPLE}; below it receives are posted natively, as before). The queue is
 * its own lock: the helper and the rank's threads match one at a time.
 */
final class DeferredReceives {
    private final BlockedCallProgress progress;
    private final NativePointToPoint pointToPoint;
    private final List<DeferredReceive> pending = new ArrayList<>();

    DeferredReceives(BlockedCallProgress progress, NativePointToPoint pointToPoint) {
        this.progress = progress;
        this.pointToPoint = pointToPoint;
    }

    synchronized boolean hasPending() {
        return !pending.isEmpty();
    }

    /** A receive of up to {@code capacity} bytes from {@code source} with {@code tag} (wildcards allowed), matched as messages come. */
    Request post(MemorySegment buffer, long capacity, int source, int tag) {
        pointToPoint.checkReceive(capacity, tag); // refused when posted, as MPI_Irecv would
        DeferredReceive r = new DeferredReceive(buffer, capacity, source, tag);
        synchronized (this) {
            if (pending.isEmpty()) {
                progress.deferredPending(this, true);
            }
            pending.add(r);
        }
        progress();
        return r;
    }

    /** Matches what has arrived to the pending receives, earliest first; whether any completed. */
    synchronized boolean progress() {
        boolean any = false;
        for (int i = 0; i < pending.size(); i++) {
            DeferredReceive r = pending.get(i);
            boolean found;
            try {
                found = pointToPoint.improbe(r.source, r.tag);
            } catch (LockstepException e) {
                failAll(e); // the library refused the probe: no receive here can complete
                return true;
            }
            if (!found) {
                continue;
            }
            int source = NativePointToPoint.matchedSource();
            int tag = NativePointToPoint.matchedTag();
            DeferredReceive owner = r;
            for (DeferredReceive earlier : pending) {
                if (earlier.accepts(source, tag)) {
                    owner = earlier;
                    break;
                }
            }
            pending.remove(owner);
            owner.take();
            any = true;
            i = -1; // from the earliest again
        }
        if (any && pending.isEmpty()) {
            progress.deferredPending(this, false);
        }
        return any;
    }

    private void failAll(LockstepException e) {
        for (DeferredReceive r : pending) {
            r.failure = e;
            r.complete = true;
        }
        pending.clear();
        progress.deferredPending(this, false);
    }

    /** The communicator is being closed: a receive still pending fails, naming it. */
    synchronized void close(String communicator) {
        if (!pending.isEmpty()) {
            failAll(new LockstepException(org.lockstep.api.ErrorClass.COMM, "a receive was still pending when " + communicator
                    + " was closed"));
        }
    }

    /**
     * A probe's answer: the status of a message for {@code source} and {@code tag} that no pending
     * receive takes (those are matched first, and again while the probe finds one they accept).
     */
    Optional<Status> iprobeUnclaimed(int source, int tag) {
        while (true) {
            Optional<Status> found;
            synchronized (this) {
                progress();
                found = pointToPoint.iprobe(source, tag);
                if (found.isEmpty() || pending.stream().noneMatch(r -> r.accepts(found.get().source(), found.get().tag()))) {
                    return found;
                }
            }
        }
    }

    /** A receive waiting in the queue. */
    private final class DeferredReceive implements Request {
        private final MemorySegment buffer;
        private final long capacity;
        private final int source;
        private final int tag;
        private volatile boolean complete;
        private Status status;
        private LockstepException failure;
        /** Native memory the message went to, for the owner to copy into the buffer; null if it went there directly. */
        private MemorySegment staged;

        DeferredReceive(MemorySegment buffer, long capacity, int source, int tag) {
            this.buffer = buffer;
            this.capacity = capacity;
            this.source = source;
            this.tag = tag;
        }

        boolean accepts(int messageSource, int messageTag) {
            return (source == Communicator.ANY_SOURCE || source == messageSource) && (tag == Communicator.ANY_TAG || tag == messageTag);
        }

        /**
         * Receives the message this thread matched. A thread that cannot reach the buffer (the helper,
         * and memory of a confined arena) receives into native memory the owner copies out at completion.
         */
        void take() {
            MemorySegment into = buffer;
            if (buffer != null && !buffer.isAccessibleBy(Thread.currentThread())) {
                staged = NativeMemory.allocate(Math.max(capacity, 1)).asSlice(0, capacity);
                into = staged;
            }
            try {
                status = pointToPoint.receiveMatched(into, capacity);
            } catch (LockstepException e) {
                failure = e;
            }
            complete = true;
        }

        @Override
        public Status await() {
            IdleStrategy idle = new IdleStrategy();
            while (!complete) {
                boolean moved = progress();
                moved |= ProgressAgents.advance(); // the targets of this rank's point-to-point windows
                moved |= progress.progressDeferred(); // other communicators' receives (a sender's rendezvous may wait for one)
                idle.idle(moved);
            }
            return result();
        }

        @Override
        public Optional<Status> test() {
            if (!complete) {
                progress();
            }
            return complete ? Optional.of(result()) : Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return complete;
        }

        @Override
        public void cancel() {
            synchronized (DeferredReceives.this) {
                if (!complete && pending.remove(this)) {
                    if (pending.isEmpty()) {
                        progress.deferredPending(DeferredReceives.this, false);
                    }
                    status = Status.ofCancelled();
                    complete = true;
                }
            }
        }

        /** After {@code complete} (volatile, written last by whichever thread matched): what {@link #take} wrote. */
        private Status result() {
            if (staged != null) {
                long delivered = status != null ? status.byteCount() : failure instanceof TruncationException t ? t.status().byteCount() : 0;
                MemorySegment.copy(staged, 0, buffer, 0, delivered);
                NativeMemory.free(staged);
                staged = null;
            }
            if (failure != null) {
                throw failure instanceof TruncationException t ? new TruncationException(t.status(), t.messageBytes()) : failure;
            }
            return status;
        }
    }
}
