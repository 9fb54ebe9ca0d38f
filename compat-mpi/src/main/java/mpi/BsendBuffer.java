package mpi;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * The buffer of buffered sends ({@code MPI_Buffer_attach}). A buffered send copies its message,
 * sends the copy without blocking and returns; the copy's bytes plus {@code MPI.BSEND_OVERHEAD}
 * count against the attached buffer until that send completes. A send that does not fit even
 * after the completed ones are released fails with {@code MPI.ERR_BUFFER}, as MPI says.
 *
 * <p>Without an attached buffer, a buffered send of up to {@link #EAGER_LIMIT} bytes is sent
 * from a private copy all the same, as Open MPI sends such messages eagerly: programs that pass
 * there (the IBM suite's {@code ibSend} test) pass here.
 */
final class BsendBuffer {
    private record Pending(org.lockstep.api.Request request, long charge) {
    }

    /** The largest buffered send that needs no attached buffer (Open MPI's shared-memory eager limit). */
    static final long EAGER_LIMIT = 4096;

    /** Null for the sends made without an attached buffer. */
    private final byte[] array;
    private final Deque<Pending> pending = new ArrayDeque<>();
    private long used;

    BsendBuffer(byte[] array) {
        this.array = array;
    }

    byte[] array() {
        return array;
    }

    /** Copies {@code bytes} of {@code data} and starts sending the copy. */
    void send(String call, Communicator comm, MemorySegment data, long count, org.lockstep.api.Datatype type, int dest, int tag)
            throws MPIException {
        long bytes = type.byteLength(count);
        long charge = bytes + MPI.BSEND_OVERHEAD;
        releaseCompleted();
        if (array == null && bytes > EAGER_LIMIT) {
            throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "no buffer is attached for buffered sends (MPI.attachBuffer), "
                    + "and this one of " + bytes + " bytes is larger than the " + EAGER_LIMIT + " bytes sent without one");
        }
        if (array != null && used + charge > array.length) {
            throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "the attached buffer of " + array.length + " bytes has "
                    + (array.length - used) + " free for buffered sends, and this one needs " + charge
                    + " (" + bytes + " bytes + MPI.BSEND_OVERHEAD)");
        }
        MemorySegment copy = Packed.copyOf(data, count, type);
        org.lockstep.api.Request request = comm.isend(copy, bytes, org.lockstep.api.Datatype.BYTE, dest, tag);
        pending.add(new Pending(request, charge));
        used += charge;
    }

    private void releaseCompleted() {
        pending.removeIf(p -> {
            if (p.request.test().isPresent()) {
                used -= p.charge;
                return true;
            }
            return false;
        });
    }

    /** Waits until every buffered send has completed ({@code MPI_Buffer_detach}, {@code MPI_Finalize}). */
    void drain() throws MPIException {
        try {
            while (!pending.isEmpty()) {
                Pending p = pending.poll();
                p.request.await();
                used -= p.charge;
            }
        } catch (LockstepException e) {
            throw ErrorClasses.exception("MPI.detachBuffer", e);
        }
    }
}
