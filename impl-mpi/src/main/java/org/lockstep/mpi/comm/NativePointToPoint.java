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
import org.lockstep.spi.collective.CollectiveTag;

/**
 * Point-to-point on one native {@code MPI_Comm}. Messages travel as {@code MPI_BYTE}s, so that a
 * receive accepts any message of the right length as the API promises. Buffers on the Java heap go
 * through native memory: the thread's {@link Scratch} for blocking calls, a copy per request for
 * non-blocking ones. Arguments were checked by the communicator; what the library still rejects
 * comes back as its own error class and text. Each call enters the thread guard inline, with the
 * native call in between, rather than through {@link ThreadGuard#invoke}: no lambda per message.
 */
final class NativePointToPoint {
    private final MpiSession session;
    private final long handle;
    /** A collective channel: its tags are the SPI's collective tags, folded into the library's bound. */
    private final boolean foldsCollectiveTags;

    NativePointToPoint(MpiSession session, long handle, boolean foldsCollectiveTags) {
        this.session = session;
        this.handle = handle;
        this.foldsCollectiveTags = foldsCollectiveTags;
    }

    /** A native blocking send ({@code MPI_Send}, {@code MPI_Ssend}) instead of a request awaited. */
    void sendBlocking(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        int nativeTag = nativeTag(tag);
        int n = messageLength(bytes);
        MemorySegment data = buffer == null || buffer.isNative() ? Staging.nativeOrNull(buffer)
                : stagedIn(Scratch.get().staging(0, bytes), buffer, bytes);
        ThreadGuard guard = session.guard();
        BlockedCallProgress.Blocked served = session.blockedCalls().block();
        guard.enter();
        int rc;
        try {
            // each handle named in its own call: a handle chosen into a local is not a constant, and is not inlined
            rc = synchronous ? (int) Mpi.SSEND.invokeExact(data, n, session.types().bytes(), dest, nativeTag, handle)
                    : (int) Mpi.SEND.invokeExact(data, n, session.types().bytes(), dest, nativeTag, handle);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
            session.blockedCalls().unblock(served);
        }
        Mpi.check(rc, synchronous ? "MPI_Ssend" : "MPI_Send");
    }

    Request send(MemorySegment buffer, long bytes, int dest, int tag, boolean synchronous) {
        int nativeTag = nativeTag(tag);
        Start start = synchronous ? Start.ISSEND : Start.ISEND;
        Status done = Status.of(dest, tag, bytes);
        int n = messageLength(bytes);
        MpiRequest.Staged staged = stageIn(buffer, bytes, false);
        MpiRequest request = MpiRequest.create(session, start.call, MpiRequest.Kind.SEND, done, staged);
        // a local of its own: in a signature-polymorphic call a conditional expression would be typed Object
        MemorySegment data = staged.copy() != null ? staged.copy() : Staging.nativeOrNull(buffer);
        return started(start, data, n, dest, nativeTag, request);
    }

    /** A native blocking receive ({@code MPI_Recv}, or {@code MPI_Mprobe} + {@code MPI_Mrecv} where the session {@linkplain MpiSession#probesBeforeReceive probes first}). */
    Status receiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        int nativeTag = nativeTag(tag);
        int n = messageLength(capacity);
        if (session.probesBeforeReceive()) {
            return probedReceive(buffer, capacity, source, nativeTag);
        }
        Scratch scratch = Scratch.get();
        boolean heap = buffer != null && !buffer.isNative();
        MemorySegment data = heap ? scratch.staging(0, capacity) : Staging.nativeOrNull(buffer);
        ThreadGuard guard = session.guard();
        BlockedCallProgress.Blocked served = session.blockedCalls().block();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.RECV.invokeExact(data, n, session.types().bytes(), nativeSource(source), nativeTag, handle, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
            session.blockedCalls().unblock(served);
        }
        boolean truncated = rc != 0 && MpiErrors.errorClass(rc) == Mpi.ABI.truncateClass();
        if (rc != 0 && !truncated) {
            Mpi.check(rc, "MPI_Recv");
        }
        // where the library keeps nothing of a truncated receive, its count is no length either
        long length = !truncated || Mpi.ABI.truncationKeepsPrefix() ? Mpi.ABI.statusBytes(scratch.status) : TruncationException.UNKNOWN_LENGTH;
        return received(buffer, data, capacity, length, heap, scratch.status, truncated);
    }

    /**
     * A blocking receive that learns the message's length first ({@code MPI_Mprobe}, then
     * {@code MPI_Mrecv}), for libraries whose truncated receives keep nothing: a message longer
     * than the buffer is received whole into scratch memory and its first part copied.
     */
    private Status probedReceive(MemorySegment buffer, long capacity, int source, int nativeTag) {
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        BlockedCallProgress.Blocked served = session.blockedCalls().block();
        guard.enter();
        try {
            Mpi.check((int) Mpi.MPROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.words, scratch.status), "MPI_Mprobe");
            return receiveMatched(buffer, capacity);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
            session.blockedCalls().unblock(served);
        }
    }

    /**
     * {@code MPI_Improbe}: whether a message for {@code source} and {@code tag} was there, taken out
     * of matching; its handle and status are then in this thread's {@link Scratch} for {@link #receiveMatched}.
     */
    boolean improbe(int source, int tag) {
        int nativeTag = nativeTag(tag);
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        guard.enter();
        try {
            Mpi.check((int) Mpi.IMPROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.words.asSlice(8),
                    scratch.words, scratch.status), "MPI_Improbe");
            return scratch.words.get(ValueLayout.JAVA_INT, 8) != 0;
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
    }

    /** Fails as {@link #receive} would: a tag above the library's bound ({@code ERR_TAG}), a capacity beyond an MPI count. */
    void checkReceive(long capacity, int tag) {
        nativeTag(tag);
        messageLength(capacity);
    }

    /** The source and tag of the message {@link #improbe} matched. */
    static int matchedSource() {
        return Mpi.ABI.statusSource(Scratch.get().status);
    }

    static int matchedTag() {
        return Mpi.ABI.statusTag(Scratch.get().status);
    }

    /**
     * {@code MPI_Mrecv} of the message this thread matched (its handle and status in its {@link Scratch}):
     * a message longer than the buffer is received whole into scratch memory and its first part copied,
     * so that a truncation keeps the first part and the length; throws {@link TruncationException} then.
     */
    Status receiveMatched(MemorySegment buffer, long capacity) {
        Scratch scratch = Scratch.get();
        long length = Mpi.ABI.statusBytes(scratch.status);
        boolean truncated = length > capacity;
        boolean heap = buffer != null && !buffer.isNative();
        MemorySegment data = truncated ? scratch.staging(0, length) : heap ? scratch.staging(0, capacity) : Staging.nativeOrNull(buffer);
        int n = messageLength(truncated ? length : capacity);
        ThreadGuard guard = session.guard();
        guard.enter();
        try {
            Mpi.check((int) Mpi.MRECV.invokeExact(data, n, session.types().bytes(), scratch.words, scratch.status), "MPI_Mrecv");
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        return received(buffer, data, capacity, length, heap || truncated, scratch.status, truncated);
    }

    /** The status of a completed receive of a {@code length}-byte message; copies staged bytes to the heap; throws on truncation. */
    private static Status received(MemorySegment buffer, MemorySegment data, long capacity, long length, boolean staged,
                                   MemorySegment nativeStatus, boolean truncated) {
        long delivered = length == TruncationException.UNKNOWN_LENGTH ? 0 : Math.min(length, capacity);
        if (staged && delivered > 0) {
            MemorySegment.copy(data, 0, buffer, 0, delivered);
        }
        Status status = new Status(Mpi.ABI.statusSource(nativeStatus), Mpi.ABI.statusTag(nativeStatus), delivered, false,
                truncated ? ErrorClass.TRUNCATE : null);
        if (truncated) {
            throw new TruncationException(status, length);
        }
        return status;
    }

    Request receive(MemorySegment buffer, long capacity, int source, int tag) {
        int nativeTag = nativeTag(tag);
        int n = messageLength(capacity);
        MpiRequest.Staged staged = stageIn(buffer, capacity, true);
        MpiRequest request = MpiRequest.receive(session, capacity, staged);
        MemorySegment data = staged.copy() != null ? staged.copy() : Staging.nativeOrNull(buffer);
        return started(Start.IRECV, data, n, nativeSource(source), nativeTag, request);
    }

    /** The calls that start a point-to-point request (one signature). */
    private enum Start {
        ISEND("MPI_Isend"), ISSEND("MPI_Issend"), IRECV("MPI_Irecv");

        final String call;

        Start(String call) {
            this.call = call;
        }
    }

    /**
     * Starts {@code request} with {@code start}'s call under the thread guard; a start that fails
     * releases it. Each handle is named in a call of its own: a handle passed as a value is not a
     * constant to the JIT, and its call is not inlined.
     */
    private Request started(Start start, MemorySegment data, int n, int peer, int nativeTag, MpiRequest request) {
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        long types = session.types().bytes();
        MemorySegment handleAddress = request.handleAddress();
        try {
            rc = switch (start) {
                case ISEND -> (int) Mpi.ISEND.invokeExact(data, n, types, peer, nativeTag, handle, handleAddress);
                case ISSEND -> (int) Mpi.ISSEND.invokeExact(data, n, types, peer, nativeTag, handle, handleAddress);
                case IRECV -> (int) Mpi.IRECV.invokeExact(data, n, types, peer, nativeTag, handle, handleAddress);
            };
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        if (rc != 0) {
            throw request.startFailed(rc);
        }
        return request;
    }

    Status probe(int source, int tag) {
        int nativeTag = nativeTag(tag);
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        BlockedCallProgress.Blocked served = session.blockedCalls().block();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.PROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
            session.blockedCalls().unblock(served);
        }
        Mpi.check(rc, "MPI_Probe");
        return probed(scratch.status);
    }

    Optional<Status> iprobe(int source, int tag) {
        int nativeTag = nativeTag(tag);
        Scratch scratch = Scratch.get();
        ThreadGuard guard = session.guard();
        guard.enter();
        int rc;
        try {
            rc = (int) Mpi.IPROBE.invokeExact(nativeSource(source), nativeTag, handle, scratch.words, scratch.status);
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            guard.exit();
        }
        Mpi.check(rc, "MPI_Iprobe");
        return scratch.words.get(ValueLayout.JAVA_INT, 0) == 0 ? Optional.empty() : Optional.of(probed(scratch.status));
    }

    private static Status probed(MemorySegment status) {
        MpiAbi abi = Mpi.ABI;
        return Status.of(abi.statusSource(status), abi.statusTag(status), abi.statusBytes(status));
    }

    /**
     * The library's tag for {@code tag}: its wildcard for {@code ANY_TAG}; on a collective channel the
     * SPI's collective tags folded into the library's bound ({@link CollectiveTag#fold}); elsewhere the
     * tag itself, which must be within the bound.
     */
    private int nativeTag(int tag) {
        if (tag == Communicator.ANY_TAG) {
            return Mpi.ABI.anyTag();
        }
        int bound = session.tagUpperBound();
        if (foldsCollectiveTags) {
            try {
                return CollectiveTag.fold(tag, bound);
            } catch (IllegalArgumentException e) {
                throw new LockstepException(ErrorClass.INTERN, "a collective's tag does not fit this MPI library's MPI_TAG_UB: "
                        + e.getMessage(), e);
            }
        }
        if (tag > bound) {
            throw new LockstepException(ErrorClass.TAG, "tag " + tag + " is above this MPI library's MPI_TAG_UB, "
                    + bound + " (" + session.library().path() + ")");
        }
        return tag;
    }

    /** A point-to-point length as MPI's {@code int} count of bytes. */
    private static int messageLength(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new LockstepException(ErrorClass.COUNT, "a message of " + bytes + " bytes is above the 2^31-1 bytes an MPI "
                    + "count of MPI_BYTE can carry on this provider; send it in parts");
        }
        return (int) bytes;
    }

    private static int nativeSource(int source) {
        return source == Communicator.ANY_SOURCE ? Mpi.ABI.anySource() : source;
    }

    private static MemorySegment stagedIn(MemorySegment copy, MemorySegment heap, long bytes) {
        MemorySegment.copy(heap, 0, copy, 0, bytes);
        return copy;
    }

    /** For a non-blocking call: a native copy of a heap buffer (filled for a send), or none for native memory. */
    private static MpiRequest.Staged stageIn(MemorySegment buffer, long bytes, boolean receive) {
        if (buffer == null || buffer.isNative()) {
            return new MpiRequest.Staged(null, null, 0);
        }
        MemorySegment copy = NativeMemory.allocate(bytes);
        if (!receive) {
            MemorySegment.copy(buffer, 0, copy, 0, bytes);
            return new MpiRequest.Staged(copy, null, 0);
        }
        return new MpiRequest.Staged(copy, buffer, -1);
    }
}
