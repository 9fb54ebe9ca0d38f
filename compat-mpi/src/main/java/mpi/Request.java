package mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.api.LockstepException;

/**
 * A non-blocking operation ({@code MPI_Request}). Once a wait or a successful test has completed
 * it, the request is inactive and {@link #isNull()} (a persistent {@link Prequest} stays usable
 * and can be started again). Waiting on an inactive request returns an empty status at once.
 */
public class Request implements Freeable {
    /** The operation in flight, or null when inactive. */
    private org.lockstep.api.Request operation;
    /** The communicator whose error handler reports failures; null for {@code REQUEST_NULL}. */
    final Comm comm;
    final String call;
    /** Status of an operation that completed but was only looked at ({@link #getStatus()}). */
    private Status completed;
    private boolean freed;

    Request(Comm comm, String call, org.lockstep.api.Request operation) {
        this.comm = comm;
        this.call = call;
        this.operation = operation;
    }

    /** {@code MPI.REQUEST_NULL}. */
    static Request nullRequest() {
        Request r = new Request(null, "MPI.REQUEST_NULL", null);
        r.freed = true;
        return r;
    }

    /** Makes this request carry {@code next} (a persistent request's new start). */
    final void activate(org.lockstep.api.Request next) {
        operation = next;
        completed = null;
    }

    final boolean isActive() {
        return operation != null;
    }

    /** After completion: a plain request becomes null, a persistent one inactive. */
    void completedHook() {
        freed = true;
    }

    /** Frees the request ({@code MPI_Request_free}); an operation in flight still completes. */
    @Override
    public void free() throws MPIException {
        MPI.check();
        operation = null;
        freed = true;
    }

    /** Asks for cancellation ({@code MPI_Cancel}); the request must still be completed. */
    public final void cancel() throws MPIException {
        MPI.check();
        if (operation != null) {
            try {
                operation.cancel();
            } catch (LockstepException e) {
                throw fail(e);
            }
        }
    }

    /** Whether this is {@code MPI.REQUEST_NULL}, or was freed or completed. */
    public final boolean isNull() {
        return freed && operation == null;
    }

    /** Waits for completion and returns the status ({@code MPI_Wait}). */
    public final Status waitStatus() throws MPIException {
        MPI.check();
        return awaitStatus(0);
    }

    /** Waits for completion ({@code MPI_Wait}). */
    public final void waitFor() throws MPIException {
        MPI.check();
        awaitStatus(0);
    }

    /** The status if the operation has completed (then the request is released), else null ({@code MPI_Test}). */
    public final Status testStatus() throws MPIException {
        MPI.check();
        Status s = poll(0);
        if (s != null) {
            release();
        }
        return s;
    }

    /** The status if the operation has completed, else null; the request stays as it is ({@code MPI_Request_get_status}). */
    public final Status getStatus() throws MPIException {
        MPI.check();
        return operation == null ? Status.empty(MPI.ANY_SOURCE) : poll(0);
    }

    /** Whether the operation has completed (then the request is released) ({@code MPI_Test}). */
    public final boolean test() throws MPIException {
        return testStatus() != null;
    }

    private Status awaitStatus(int index) throws MPIException {
        if (operation == null) {
            return Status.empty(MPI.ANY_SOURCE);
        }
        Status s = completed;
        if (s == null) {
            try {
                s = Status.of(operation.await(), index);
            } catch (LockstepException e) {
                release();
                throw fail(e);
            }
        }
        release();
        return s;
    }

    /** The status if complete (kept for the next look), else null. */
    private Status poll(int index) throws MPIException {
        if (operation == null) {
            return Status.empty(MPI.ANY_SOURCE);
        }
        if (completed == null) {
            try {
                Optional<org.lockstep.api.Status> s = operation.test();
                if (s.isPresent()) {
                    completed = Status.of(s.get(), index);
                }
            } catch (LockstepException e) {
                release();
                throw fail(e);
            }
        }
        return completed;
    }

    private void release() {
        operation = null;
        completed = null;
        completedHook();
    }

    private MPIException fail(LockstepException e) {
        return (comm == null ? MPI.ERRORS_ARE_FATAL : comm.errhandler()).handle(call, e);
    }

    // ---- multiple completion (MPI 4.1 §3.7.5) ----

    /** Waits until one request completes; its status carries its index, {@code MPI.UNDEFINED} if all are inactive ({@code MPI_Waitany}). */
    public static Status waitAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        Idle idle = new Idle();
        while (true) {
            Status s = anyCompleted(requests);
            if (s != null) {
                return s;
            }
            idle.idle();
        }
    }

    /** As {@link #waitAnyStatus}, returning only the index ({@code MPI_Waitany}). */
    public static int waitAny(Request[] requests) throws MPIException {
        return waitAnyStatus(requests).getIndex();
    }

    /** The status of one completed request, or null when none has ({@code MPI_Testany}). */
    public static Status testAnyStatus(Request[] requests) throws MPIException {
        MPI.check();
        return anyCompleted(requests);
    }

    /** The index of one completed request, or {@code MPI.UNDEFINED} ({@code MPI_Testany}). */
    public static int testAny(Request[] requests) throws MPIException {
        Status s = testAnyStatus(requests);
        return s == null ? MPI.UNDEFINED : s.getIndex();
    }

    /** Waits for every request; their statuses in order ({@code MPI_Waitall}). */
    public static Status[] waitAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        Status[] statuses = new Status[requests.length];
        MPIException first = null;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            try {
                statuses[i] = r == null ? Status.empty(MPI.ANY_SOURCE) : r.awaitStatus(i);
            } catch (MPIException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return statuses;
    }

    /** Waits for every request ({@code MPI_Waitall}). */
    public static void waitAll(Request[] requests) throws MPIException {
        waitAllStatus(requests);
    }

    /** Every status if all requests have completed (then all are released), else null ({@code MPI_Testall}). */
    public static Status[] testAllStatus(Request[] requests) throws MPIException {
        MPI.check();
        for (Request r : requests) {
            if (r != null && r.operation != null && r.poll(0) == null) {
                return null;
            }
        }
        return waitAllStatus(requests);
    }

    /** Whether all requests have completed (then all are released) ({@code MPI_Testall}). */
    public static boolean testAll(Request[] requests) throws MPIException {
        return testAllStatus(requests) != null;
    }

    /** Waits until at least one completes; the statuses of all that have, or null if all are inactive ({@code MPI_Waitsome}). */
    public static Status[] waitSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        Idle idle = new Idle();
        while (true) {
            Status[] done = someCompleted(requests);
            if (done == null || done.length > 0) {
                return done;
            }
            idle.idle();
        }
    }

    /** As {@link #waitSomeStatus}, returning the indices ({@code MPI_Waitsome}). */
    public static int[] waitSome(Request[] requests) throws MPIException {
        return indices(waitSomeStatus(requests));
    }

    /** The statuses of all requests that have completed (maybe none), or null if all are inactive ({@code MPI_Testsome}). */
    public static Status[] testSomeStatus(Request[] requests) throws MPIException {
        MPI.check();
        return someCompleted(requests);
    }

    /** As {@link #testSomeStatus}, returning the indices ({@code MPI_Testsome}). */
    public static int[] testSome(Request[] requests) throws MPIException {
        return indices(testSomeStatus(requests));
    }

    private static Status anyCompleted(Request[] requests) throws MPIException {
        boolean anyActive = false;
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r == null || r.operation == null) {
                continue;
            }
            anyActive = true;
            Status s = r.poll(i);
            if (s != null) {
                r.release();
                return withIndex(s, i);
            }
        }
        return anyActive ? null : new Status(MPI.ANY_SOURCE, MPI.ANY_TAG, ErrorClasses.SUCCESS, false, 0, MPI.UNDEFINED);
    }

    private static Status[] someCompleted(Request[] requests) throws MPIException {
        boolean anyActive = false;
        List<Status> done = new ArrayList<>();
        for (int i = 0; i < requests.length; i++) {
            Request r = requests[i];
            if (r == null || r.operation == null) {
                continue;
            }
            anyActive = true;
            Status s = r.poll(i);
            if (s != null) {
                r.release();
                done.add(withIndex(s, i));
            }
        }
        return anyActive ? done.toArray(new Status[0]) : null;
    }

    private static Status withIndex(Status s, int index) {
        return s.getIndex() == index ? s : s.withIndex(index);
    }

    private static int[] indices(Status[] statuses) {
        if (statuses == null) {
            return null;
        }
        int[] indices = new int[statuses.length];
        for (int i = 0; i < statuses.length; i++) {
            indices[i] = statuses[i].getIndex();
        }
        return indices;
    }
}
