package mpi;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Window;

/**
 * The shared file pointer of an open {@link File} (MPI 4.1 §14.4.4), in etypes of the view: one
 * long in a window at rank 0 of the file's group, which every rank moves by fetch-and-add under a
 * shared lock. An exclusive lock on the same window is atomic mode's lock. A provider without
 * windows has neither: those calls then fail as unsupported.
 */
final class SharedFilePointer {
    /** Null when the provider has no one-sided communication. */
    private final Window window;

    private SharedFilePointer(Window window) {
        this.window = window;
    }

    /** Collective over the file's communicator. */
    static SharedFilePointer allocate(Communicator comm) {
        try {
            return new SharedFilePointer(comm.allocateWindow(comm.rank() == 0 ? Long.BYTES : 0, 1, org.lockstep.api.Info.EMPTY));
        } catch (LockstepException e) {
            if (e.errorClass() == org.lockstep.api.ErrorClass.UNSUPPORTED_OPERATION) {
                return new SharedFilePointer(null);
            }
            throw e;
        }
    }

    boolean exists() {
        return window != null;
    }

    void require(String call) throws MPIException {
        if (window == null) {
            throw ErrorClasses.unsupported(call, "the provider has no one-sided communication, which holds the shared file pointer");
        }
    }

    /** Adds {@code etypes} to the pointer; returns its value before. */
    long fetchAndAdd(String call, long etypes) throws MPIException {
        require(call);
        long[] before = new long[1];
        try {
            window.lock(Window.LockType.SHARED, 0);
            window.fetchAndOp(MemorySegment.ofArray(new long[] {etypes}), MemorySegment.ofArray(before), Datatype.LONG, 0, 0, Op.SUM);
            window.unlock(0);
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
        return before[0];
    }

    /** Stores {@code etypes} as the pointer (rank 0, once every rank is done with the old value). */
    void store(String call, long etypes) throws MPIException {
        try {
            window.lock(Window.LockType.EXCLUSIVE, 0);
            window.put(MemorySegment.ofArray(new long[] {etypes}), 1, Datatype.LONG, 0, 0);
            window.unlock(0);
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    void lockExclusive(String call) throws MPIException {
        require(call);
        try {
            window.lock(Window.LockType.EXCLUSIVE, 0);
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    void unlock(String call) throws MPIException {
        try {
            window.unlock(0);
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    /** Collective, as the window's free is. */
    void free() {
        if (window != null) {
            window.free();
        }
    }
}
