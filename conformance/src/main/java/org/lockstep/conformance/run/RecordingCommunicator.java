package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A rank's communicator as rule code sees it in a run. Every call is forwarded to the provider's
 * communicator and recorded (for hang reports: each rank's last operation). Blocking calls are
 * driven as their non-blocking forms completed by {@link Request#test()} — equivalent by MPI's
 * definition — so that the runner can stop a rank that would wait forever; rules that exercise a
 * provider's own blocking calls use {@link RankContext#raw()}.
 */
final class RecordingCommunicator implements Communicator {
    private final Communicator raw;
    private final RankState rank;

    RecordingCommunicator(Communicator raw, RankState rank) {
        this.raw = raw;
        this.rank = rank;
    }

    Communicator raw() {
        return raw;
    }

    @Override
    public int rank() {
        return raw.rank();
    }

    @Override
    public int size() {
        return raw.size();
    }

    @Override
    public void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        startSend("send", buffer, count, type, dest, tag, false).await();
    }

    @Override
    public void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        startSend("ssend", buffer, count, type, dest, tag, true).await();
    }

    @Override
    public Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return start("recv", describe(count, type, "from", source, tag), () -> raw.irecv(buffer, count, type, source, tag)).await();
    }

    @Override
    public Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend("isend", buffer, count, type, dest, tag, false);
    }

    @Override
    public Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend("issend", buffer, count, type, dest, tag, true);
    }

    @Override
    public Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return start("irecv", describe(count, type, "from", source, tag), () -> raw.irecv(buffer, count, type, source, tag));
    }

    @Override
    public Status probe(int source, int tag) {
        RankState.Activity a = rank.begin("probe", "source " + source + ", tag " + tag, true);
        Waiting idle = new Waiting(rank);
        try {
            while (true) {
                Optional<Status> found = raw.iprobe(source, tag);
                if (found.isPresent()) {
                    rank.end(a, found.get().toString());
                    return found.get();
                }
                idle.idle();
            }
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    @Override
    public Optional<Status> iprobe(int source, int tag) {
        RankState.Activity a = rank.begin("iprobe", "source " + source + ", tag " + tag, false);
        try {
            Optional<Status> found = raw.iprobe(source, tag);
            rank.end(a, found.map(Status::toString).orElse("nothing"));
            return found;
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    @Override
    public MemorySegment allocate(long byteSize) {
        return raw.allocate(byteSize);
    }

    @Override
    public void free(MemorySegment segment) {
        raw.free(segment);
    }

    @Override
    public void close() {
        RankState.Activity a = rank.begin("close", "", false);
        raw.close();
        rank.end(a, "closed");
    }

    private Request startSend(String operation, MemorySegment buffer, long count, Datatype type, int dest, int tag,
                              boolean synchronous) {
        return start(operation, describe(count, type, "to", dest, tag), synchronous
                ? () -> raw.issend(buffer, count, type, dest, tag)
                : () -> raw.isend(buffer, count, type, dest, tag));
    }

    private RecordingRequest start(String operation, String detail, java.util.function.Supplier<Request> call) {
        rank.checkAborted();
        RankState.Activity a = rank.begin(operation, detail, false);
        Request r;
        try {
            r = call.get();
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
        if (r == null) {
            rank.end(a, "returned null");
            throw new LockstepException(org.lockstep.api.ErrorClass.INTERN, operation + " returned no request");
        }
        rank.current = null;
        return new RecordingRequest(r, rank, a);
    }

    private static String describe(long count, Datatype type, String direction, int peer, int tag) {
        return count + " x " + type + " " + direction + " " + peerName(peer) + ", tag " + (tag == ANY_TAG ? "ANY_TAG" : Integer.toString(tag));
    }

    private static String peerName(int peer) {
        return switch (peer) {
            case ANY_SOURCE -> "ANY_SOURCE";
            case PROC_NULL -> "PROC_NULL";
            default -> "rank " + peer;
        };
    }
}
