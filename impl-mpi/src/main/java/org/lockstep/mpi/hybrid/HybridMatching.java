package org.lockstep.mpi.hybrid;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * Receives that may match a message from either transport: a wildcard source spans the ranks of
 * this host (the local transport) and of the other hosts (MPI). Such a receive is kept here, in
 * posting order, and matched by probing both transports; while one is pending, later receives
 * queue behind it too, so that a message always goes to the earliest posted receive that matches
 * it, as MPI requires. A message found for one receive is given to the first pending receive
 * whose source and tag accept it.
 */
final class HybridMatching {
    /** A message found by a probe, on which transport. */
    private record Found(boolean local, Status status) {
        int member() {
            return status.source();
        }

        int tag() {
            return status.tag();
        }
    }

    private final HybridCommunicator comm;
    private final List<LazyReceive> pending = new ArrayList<>();
    private boolean localFirst;

    HybridMatching(HybridCommunicator comm) {
        this.comm = comm;
    }

    boolean hasPending() {
        return !pending.isEmpty();
    }

    Request post(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        LazyReceive r = new LazyReceive(buffer, count, type, source, tag);
        pending.add(r);
        progress();
        return r;
    }

    /** Matches what has arrived to pending receives; whether any completed. */
    boolean progress() {
        boolean any = false;
        for (int i = 0; i < pending.size(); i++) {
            LazyReceive r = pending.get(i);
            Optional<Found> found = probe(r.source, r.tag);
            if (found.isEmpty()) {
                continue;
            }
            LazyReceive owner = r;
            for (LazyReceive earlier : pending) {
                if (earlier.accepts(found.get())) {
                    owner = earlier;
                    break;
                }
            }
            pending.remove(owner);
            deliver(owner, found.get());
            any = true;
            i = -1; // matching again from the earliest
        }
        return any;
    }

    /**
     * The status of a message for {@code source} and {@code tag} that no pending receive takes: as
     * in MPI, where a posted receive matches a message before any later probe can see it, the
     * pending receives are matched first, and again while the probe finds what one of them accepts
     * (each round delivers at least one message, so this ends).
     */
    Optional<Status> iprobeUnclaimed(int source, int tag) {
        while (true) {
            progress();
            Optional<Found> found = probe(source, tag);
            if (found.isEmpty() || pending.stream().noneMatch(r -> r.accepts(found.get()))) {
                return found.map(Found::status);
            }
        }
    }

    private Optional<Found> probe(int source, int tag) {
        if (source != Communicator.ANY_SOURCE) {
            boolean local = comm.isLocal(source);
            return comm.iprobeOn(local, source, tag).map(s -> new Found(local, s));
        }
        localFirst = !localFirst; // neither transport starves the other
        for (boolean local : localFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            if (!comm.hasMembersOn(local)) {
                continue;
            }
            Optional<Status> s = comm.iprobeOn(local, Communicator.ANY_SOURCE, tag);
            if (s.isPresent()) {
                return Optional.of(new Found(local, s.get()));
            }
        }
        return Optional.empty();
    }

    private void deliver(LazyReceive r, Found found) {
        try {
            r.status = comm.receiveOn(found.local, r.buffer, r.count, r.type, found.member(), found.tag());
        } catch (LockstepException e) {
            r.failure = e;
        }
    }

    /** A receive waiting in {@link HybridMatching}'s queue. */
    final class LazyReceive implements Request {
        private final MemorySegment buffer;
        private final long count;
        private final Datatype type;
        private final int source;
        private final int tag;
        private Status status;
        private LockstepException failure;

        private LazyReceive(MemorySegment buffer, long count, Datatype type, int source, int tag) {
            this.buffer = buffer;
            this.count = count;
            this.type = type;
            this.source = source;
            this.tag = tag;
        }

        private boolean accepts(Found f) {
            return (source == Communicator.ANY_SOURCE || source == f.member()) && (tag == Communicator.ANY_TAG || tag == f.tag());
        }

        @Override
        public Status await() {
            IdleStrategy idle = comm.newIdleStrategy();
            boolean onLocal = source != Communicator.ANY_SOURCE && comm.isLocal(source);
            for (int round = 1; !isComplete(); round++) {
                idle.idle(comm.progressBeside(onLocal, round));
            }
            return result();
        }

        @Override
        public Optional<Status> test() {
            if (!isComplete()) {
                progress();
            }
            return isComplete() ? Optional.of(result()) : Optional.empty();
        }

        @Override
        public boolean isComplete() {
            return status != null || failure != null;
        }

        @Override
        public void cancel() {
            if (!isComplete() && pending.remove(this)) {
                status = Status.ofCancelled();
            }
        }

        private Status result() {
            if (failure != null) {
                throw failure instanceof TruncationException t ? new TruncationException(t.status(), t.messageBytes()) : failure;
            }
            return status;
        }
    }
}
