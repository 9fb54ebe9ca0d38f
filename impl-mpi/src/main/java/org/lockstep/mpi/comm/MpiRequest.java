package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.mpi.abi.MpiAbi;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.MpiErrors;
import org.lockstep.mpi.binding.NativeMemory;

/**
 * A native {@code MPI_Request} in flight. Its handle, test flag and status live in one block of
 * native memory, freed with the request's staging copy when it completes. A request whose buffer
 * is on the Java heap was started on a native copy ({@link Staged}); a receive (or collective
 * result) is copied back into the heap buffer when it completes.
 *
 * <pre>
 * cell:  0            8        16                        16 + sizeof(MPI_Status)
 *        +------------+--------+-------------------------+
 *        | MPI_Request| flag   | MPI_Status              |
 *        +------------+--------+-------------------------+
 * </pre>
 */
final class MpiRequest implements Request {
    private static final long HANDLE_OFFSET = 0;
    private static final long FLAG_OFFSET = 8;
    private static final long STATUS_OFFSET = 16;

    /** What a request completes into: the status of a receive, or a fixed status for sends and collectives. */
    enum Kind { RECEIVE, SEND, COLLECTIVE }

    /** A heap buffer behind a native copy: copied back on completion (up to {@code copyBack} bytes, -1 for the received length). */
    record Staged(MemorySegment copy, MemorySegment heap, long copyBack) {
    }

    private final MpiSession session;
    private final String call;
    private final Kind kind;
    private final Status sendStatus;
    private final Staged[] staged;
    private final long capacity;
    private volatile MemorySegment cell;
    private Status status;
    private LockstepException failure;
    private long messageBytes = -1;

    private MpiRequest(MpiSession session, String call, Kind kind, Status sendStatus, long capacity, Staged[] staged) {
        this.session = session;
        this.capacity = capacity;
        this.call = call;
        this.kind = kind;
        this.sendStatus = sendStatus;
        this.staged = staged;
        this.cell = NativeMemory.allocate(STATUS_OFFSET + Mpi.ABI.statusSize());
    }

    /** A request whose handle the caller's MPI call will write at {@link #handleAddress()}. */
    static MpiRequest create(MpiSession session, String call, Kind kind, Status sendStatus, Staged... staged) {
        return new MpiRequest(session, call, kind, sendStatus, 0, staged);
    }

    /** A receive into {@code capacity} bytes. */
    static MpiRequest receive(MpiSession session, long capacity, Staged staged) {
        return new MpiRequest(session, "MPI_Irecv", Kind.RECEIVE, null, capacity, new Staged[] {staged});
    }

    /** Where the starting call writes the {@code MPI_Request}. */
    MemorySegment handleAddress() {
        return cell;
    }

    /** The starting call threw before the library had the request: releases everything. */
    void abandon() {
        release();
    }

    /** The starting call failed: releases everything and throws its error. */
    LockstepException startFailed(int code) {
        release();
        return MpiErrors.exception(code, call);
    }

    @Override
    public Status await() {
        if (!isComplete()) {
            ThreadGuard guard = session.guard();
            BlockedCallProgress.Blocked served = session.blockedCalls().block();
            guard.enter();
            int rc;
            try {
                rc = (int) Mpi.WAIT.invokeExact(cell.asSlice(HANDLE_OFFSET), cell.asSlice(STATUS_OFFSET));
            } catch (Throwable t) {
                throw rethrown(t);
            } finally {
                guard.exit();
                session.blockedCalls().unblock(served);
            }
            completed(rc);
        }
        return result();
    }

    @Override
    public Optional<Status> test() {
        if (!isComplete()) {
            session.blockedCalls().progressDeferred(); // a sender's rendezvous may wait for a deferred receive to match
            ThreadGuard guard = session.guard();
            guard.enter();
            int rc;
            try {
                rc = (int) Mpi.TEST.invokeExact(cell.asSlice(HANDLE_OFFSET), cell.asSlice(FLAG_OFFSET), cell.asSlice(STATUS_OFFSET));
            } catch (Throwable t) {
                throw rethrown(t);
            } finally {
                guard.exit();
            }
            if (rc == 0 && cell.get(ValueLayout.JAVA_INT, FLAG_OFFSET) == 0) {
                return Optional.empty();
            }
            completed(rc);
        }
        return Optional.of(result());
    }

    @Override
    public boolean isComplete() {
        return cell == null;
    }

    @Override
    public void cancel() {
        // MPI 4.1 deprecates cancelling sends; the API lets a send complete normally instead.
        if (isComplete() || kind != Kind.RECEIVE) {
            return;
        }
        ThreadGuard guard = session.guard();
        guard.enter();
        try {
            Mpi.check((int) Mpi.CANCEL.invokeExact(cell.asSlice(HANDLE_OFFSET)), "MPI_Cancel");
        } catch (Throwable t) {
            throw rethrown(t);
        } finally {
            guard.exit();
        }
    }

    private void completed(int rc) {
        MpiAbi abi = Mpi.ABI;
        MemorySegment s = cell.asSlice(STATUS_OFFSET);
        boolean truncated = false;
        if (rc != 0) {
            int errorClass = MpiErrors.errorClass(rc);
            if (kind == Kind.RECEIVE && errorClass == abi.truncateClass()) {
                truncated = true;
            } else {
                failure = MpiErrors.exception(rc, call);
            }
        }
        if (failure == null) {
            if (kind == Kind.RECEIVE) {
                if (abi.statusCancelled(s)) {
                    status = Status.ofCancelled();
                } else {
                    long length = abi.statusBytes(s);
                    // where truncation keeps nothing, the status's count is no length either: nothing was delivered
                    long delivered = !truncated ? length : abi.truncationKeepsPrefix() ? Math.min(length, capacity) : 0;
                    copyBack(delivered);
                    int source = abi.statusSource(s);
                    status = new Status(source == abi.procNull() ? Communicator.PROC_NULL : source, abi.statusTag(s),
                            delivered, false, truncated ? ErrorClass.TRUNCATE : null);
                    if (truncated) {
                        // where the library keeps no prefix, its count is not the message's length either
                        messageBytes = abi.truncationKeepsPrefix() ? length : TruncationException.UNKNOWN_LENGTH;
                    }
                }
            } else {
                copyBack(-1);
                status = sendStatus;
            }
        }
        NativeTypes.rethrowUpcallFailure();
        release();
    }

    private void copyBack(long received) {
        for (Staged s : staged) {
            if (s.heap() == null) {
                continue;
            }
            long n = s.copyBack() < 0 ? Math.min(received, s.heap().byteSize()) : s.copyBack();
            if (n > 0) {
                MemorySegment.copy(s.copy(), 0, s.heap(), 0, n);
            }
        }
    }

    private void release() {
        if (cell != null) {
            NativeMemory.free(cell);
            cell = null;
        }
        for (Staged s : staged) {
            if (s.copy() != null) {
                NativeMemory.free(s.copy());
            }
        }
    }

    private Status result() {
        if (failure != null) {
            throw failure;
        }
        if (status.error() == ErrorClass.TRUNCATE) {
            throw new TruncationException(status, messageBytes);
        }
        return status;
    }

    static RuntimeException rethrown(Throwable t) {
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new LockstepException(ErrorClass.INTERN, "native MPI call failed: " + t, t);
    }
}
