package mpi;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window;

/**
 * The request-based accesses of {@link Win} ({@code MPI_Rput}, {@code MPI_Rget},
 * {@code MPI_Raccumulate}, {@code MPI_Rget_accumulate}). MPI 4.1 §12.3.5 allows them in
 * passive-target epochs only, and so do Lockstep's windows (an {@code RMA_SYNC} error elsewhere).
 * Open MPI's bindings run {@code rPut} and {@code rAccumulate} in a fence or start epoch too, so
 * there they are a put or accumulate (which copy the origin, so their request is complete at once)
 * and such programs keep running; {@code rGet} and {@code rGetAccumulate} stay strict, their data
 * being there only at the epoch's end.
 */
final class WinRequests {
    private WinRequests() {
    }

    interface Requesting {
        org.lockstep.api.Request start(Window w);
    }

    interface Plain {
        void run(Window w);
    }

    /** {@code body}'s request, or its failure through {@code handler}. */
    static Request started(Comm comm, Errhandler handler, String call, Window w, Requesting body) throws MPIException {
        try {
            return new Request(comm, call, body.start(w));
        } catch (LockstepException e) {
            throw handler.handle(call, e);
        }
    }

    /** {@code body}'s request; where it is RMA_SYNC for want of a lock (an active-target epoch), {@code plain} and a complete request. */
    static Request startedOrDone(Comm comm, Errhandler handler, String call, Window w, Requesting body, Plain plain) throws MPIException {
        try {
            return new Request(comm, call, body.start(w));
        } catch (LockstepException e) {
            if (e.errorClass() != ErrorClass.RMA_SYNC) {
                throw handler.handle(call, e);
            }
        }
        try {
            plain.run(w);
        } catch (LockstepException e) {
            throw handler.handle(call, e);
        }
        return new Request(comm, call, new CompletedRequest(org.lockstep.api.Status.empty()));
    }
}
