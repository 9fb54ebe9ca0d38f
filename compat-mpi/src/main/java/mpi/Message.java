package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * A message taken out of matching by a matched probe ({@code MPI_Message}), to be received by
 * {@link #mRecv} or {@link #imRecv} and no other receive: Lockstep's matched probe
 * ({@link Communicator#mprobe}). Receiving it makes the handle null again, as in MPI.
 */
public final class Message {
    /** The probed message; null for {@code MPI_MESSAGE_NULL}. */
    private org.lockstep.api.Message message;
    /** The communicator it was probed on. */
    private Comm comm;

    /** A message handle, empty until a matched probe fills it ({@code MPI_MESSAGE_NULL}). */
    public Message() {
    }

    /** Whether this handle holds no message ({@code MPI_MESSAGE_NULL}). */
    public boolean isNull() {
        return message == null;
    }

    /** Whether the probe matched {@code MPI.PROC_NULL} ({@code MPI_MESSAGE_NO_PROC}). */
    public boolean isNoProc() {
        return message == org.lockstep.api.Message.NO_PROC;
    }

    /** Waits for a matching message and takes it out of matching ({@code MPI_Mprobe}). */
    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        Communicator c = comm.live("Message.mProbe");
        try {
            return hold(c.mprobe(source, tag), comm);
        } catch (LockstepException e) {
            throw comm.fail("Message.mProbe", e);
        }
    }

    /** As {@link #mProbe} if a matching message is there now; else null, and the handle is unchanged ({@code MPI_Improbe}). */
    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        Communicator c = comm.live("Message.imProbe");
        try {
            Optional<org.lockstep.api.Message> probed = c.improbe(source, tag);
            return probed.isPresent() ? hold(probed.get(), comm) : null;
        } catch (LockstepException e) {
            throw comm.fail("Message.imProbe", e);
        }
    }

    private Status hold(org.lockstep.api.Message probed, Comm on) {
        message = probed;
        comm = on;
        return Status.of(probed.status());
    }

    /** Receives the probed message ({@code MPI_Mrecv}). */
    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        String call = "Message.mRecv";
        Communicator c = taken(call);
        long n = type.wireCount(call, count);
        MemorySegment data = Buffers.segment(buf, count, call);
        org.lockstep.api.Message m = release();
        try {
            Status status = Status.of(c.mrecv(data, n, type.wire, m));
            Buffers.copyBack(buf, data);
            return status;
        } catch (LockstepException e) {
            Buffers.copyBack(buf, data);
            throw comm.fail(call, e);
        }
    }

    /** Starts receiving the probed message ({@code MPI_Imrecv}). */
    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        String call = "Message.imRecv";
        Communicator c = taken(call);
        long n = type.wireCount(call, count);
        MemorySegment data = Buffers.segment(buf, count, call);
        Comm on = comm;
        org.lockstep.api.Message m = release();
        try {
            return new Request(on, call, c.imrecv(data, n, type.wire, m));
        } catch (LockstepException e) {
            throw on.fail(call, e);
        }
    }

    private Communicator taken(String call) throws MPIException {
        MPI.check();
        if (message == null) {
            throw ErrorClasses.argument(ErrorClasses.REQUEST, call, "the message handle is null: probe a message with mProbe or "
                    + "imProbe first (a message is received once)");
        }
        return comm.live(call);
    }

    /** The message, leaving this handle null. */
    private org.lockstep.api.Message release() {
        org.lockstep.api.Message m = message;
        message = null;
        return m;
    }
}
