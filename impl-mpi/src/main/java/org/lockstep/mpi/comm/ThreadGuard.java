package org.lockstep.mpi.comm;

import java.util.concurrent.atomic.AtomicReference;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * Keeps a library that did not grant {@code MPI_THREAD_MULTIPLE} from being called by two threads
 * at once: such a call is refused with a clear error instead of corrupting the library. With
 * {@code MPI_THREAD_MULTIPLE} it does nothing.
 */
final class ThreadGuard {
    private final boolean needed;
    private final String grantedLevel;
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    private int depth;

    ThreadGuard(boolean needed, String grantedLevel) {
        this.needed = needed;
        this.grantedLevel = grantedLevel;
    }

    void enter() {
        if (!needed) {
            return;
        }
        Thread me = Thread.currentThread();
        Thread current = owner.get();
        if (current == me) {
            depth++;
            return;
        }
        if (current != null || !owner.compareAndSet(null, me)) {
            Thread other = owner.get();
            throw new LockstepException(ErrorClass.OTHER, "thread '" + me.getName() + "' called MPI while thread '"
                    + (other == null ? "?" : other.getName()) + "' was inside an MPI call, but the library granted only "
                    + grantedLevel + " (not MPI_THREAD_MULTIPLE): call it from one thread at a time");
        }
        depth = 1;
    }

    void exit() {
        if (needed && --depth == 0) {
            owner.set(null);
        }
    }

    /**
     * {@code body} under this guard; returns its MPI error code unchecked. Not for the per-message
     * paths ({@link NativePointToPoint}, {@link MpiRequest}), which enter and exit inline so that
     * no capturing lambda is made per call.
     */
    int invoke(NativeCall body) {
        enter();
        try {
            return body.invoke();
        } catch (Throwable t) {
            throw MpiRequest.rethrown(t);
        } finally {
            exit();
        }
    }

    /** A native MPI call; returns its error code. */
    @FunctionalInterface
    interface NativeCall {
        int invoke() throws Throwable;
    }
}
