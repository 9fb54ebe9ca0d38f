package mpi;

import java.nio.Buffer;

/**
 * A message taken out of matching by a matched probe ({@code MPI_Message}), to be received by
 * {@link #mRecv} and no other receive. Matched probes need Lockstep's API for them (issue 15),
 * so the probes throw for now.
 */
public final class Message {
    private static final String MISSING = "Lockstep's API has no matched probe yet (issue 15)";

    /** A message handle, empty until a matched probe fills it ({@code MPI_MESSAGE_NULL}). */
    public Message() {
    }

    /** Whether this handle holds no message ({@code MPI_MESSAGE_NULL}). */
    public boolean isNull() {
        return true;
    }

    /** Whether the probe matched {@code MPI.PROC_NULL} ({@code MPI_MESSAGE_NO_PROC}). */
    public boolean isNoProc() {
        return false;
    }

    public Status mProbe(int source, int tag, Comm comm) throws MPIException {
        comm.live("Message.mProbe");
        throw ErrorClasses.unsupported("Message.mProbe", MISSING);
    }

    public Status imProbe(int source, int tag, Comm comm) throws MPIException {
        comm.live("Message.imProbe");
        throw ErrorClasses.unsupported("Message.imProbe", MISSING);
    }

    public Status mRecv(Object buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Message.mRecv", MISSING);
    }

    public Request imRecv(Buffer buf, int count, Datatype type) throws MPIException {
        MPI.check();
        throw ErrorClasses.unsupported("Message.imRecv", MISSING);
    }
}
