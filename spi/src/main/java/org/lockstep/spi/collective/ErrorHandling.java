package org.lockstep.spi.collective;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;

/**
 * A communicator's error handler and where it runs: every public call of
 * {@link AbstractCommunicator} hands its error to {@link #failed} before throwing it, and the
 * requests it starts are wrapped ({@link HandledRequests}) so that their errors at completion are
 * handed over too — only while a handler other than {@link ErrorHandler#RETURN} is set, so that
 * the default costs nothing on the request path. One rank's, used from one thread at a time.
 */
final class ErrorHandling {
    private final Communicator owner;
    private ErrorHandler handler = ErrorHandler.RETURN;
    /**
     * The error handed to the handler since the outermost call in progress began: a call made
     * inside another (sendrecvReplace's irecv) hands its error over, and the call around it must
     * not hand the same error over again.
     */
    private LockstepException lastHandled;

    ErrorHandling(Communicator owner) {
        this.owner = owner;
    }

    ErrorHandler handler() {
        return handler;
    }

    void set(ErrorHandler newHandler) {
        if (newHandler == null) {
            throw new LockstepException(ErrorClass.ARG, "error handler is null (ErrorHandler.RETURN is the default)");
        }
        handler = newHandler;
    }

    /**
     * A call begins: an error handed over before belongs to an earlier call, so the same exception
     * object thrown again (a stored failure) reaches the handler again.
     */
    void begin() {
        lastHandled = null;
    }

    /** The error of a call, once the handler has seen it: what the call throws (the handler may throw instead). */
    LockstepException failed(LockstepException error) {
        if (error != lastHandled) {
            lastHandled = error;
            handler.handle(owner, error);
        }
        return error;
    }

    /** Runs the handler on {@code error} whether or not it saw it before ({@code MPI_Comm_call_errhandler}). */
    void call(LockstepException error) {
        if (error == null) {
            throw new LockstepException(ErrorClass.ARG, "callErrorHandler needs an error");
        }
        lastHandled = error;
        handler.handle(owner, error);
    }

    Request handled(Request started) {
        return handler == ErrorHandler.RETURN || started == null ? started : new HandledRequests.OfRequest(this, started);
    }

    CommunicatorRequest handled(CommunicatorRequest started) {
        return handler == ErrorHandler.RETURN || started == null ? started : new HandledRequests.OfCommunicatorRequest(this, started);
    }

    PersistentRequest handled(PersistentRequest started) {
        return handler == ErrorHandler.RETURN || started == null ? started : new HandledRequests.OfPersistent(this, started);
    }

    PartitionedRequest handled(PartitionedRequest started) {
        return handler == ErrorHandler.RETURN || started == null ? started : new HandledRequests.OfPartitioned(this, started);
    }
}
