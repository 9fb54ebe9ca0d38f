package mpi;

import org.lockstep.api.LockstepException;

/**
 * A persistent request ({@code MPI_Send_init}, {@code MPI_Recv_init}): the arguments of a
 * communication bound once, started again and again with {@link #start()}. Each start issues the
 * non-blocking operation with the bound arguments, so a start means exactly what the matching
 * {@code iSend}/{@code iRecv} means.
 */
public final class Prequest extends Request {
    /** Issues the operation with the bound arguments. */
    @FunctionalInterface
    interface Starter {
        org.lockstep.api.Request start() throws MPIException;
    }

    private final Starter starter;
    private boolean freedByUser;

    Prequest(Comm comm, String call, Starter starter) {
        super(comm, call, null);
        this.starter = starter;
    }

    /** Starts the operation ({@code MPI_Start}); starting an active request is an error. */
    public void start() throws MPIException {
        MPI.check();
        if (freedByUser) {
            throw ErrorClasses.argument(ErrorClasses.REQUEST, "Prequest.start", "the request was freed");
        }
        if (isActive()) {
            throw ErrorClasses.argument(ErrorClasses.REQUEST, "Prequest.start", "the request is active: complete it before starting it again");
        }
        try {
            activate(starter.start());
        } catch (LockstepException e) {
            throw comm.errhandler().handle(call, e);
        }
    }

    /** Starts every request ({@code MPI_Startall}). */
    public static void startAll(Prequest[] requests) throws MPIException {
        MPI.check();
        for (Prequest r : requests) {
            r.start();
        }
    }

    @Override
    void completedHook() {
        // a persistent request stays allocated, inactive, until freed
    }

    @Override
    public void free() throws MPIException {
        super.free();
        freedByUser = true;
    }
}
