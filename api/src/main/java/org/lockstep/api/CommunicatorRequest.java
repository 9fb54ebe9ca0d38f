package org.lockstep.api;

/**
 * The request of a non-blocking communicator constructor ({@code MPI_Comm_idup}): once it has
 * completed, {@link #communicator()} is the new communicator.
 */
public interface CommunicatorRequest extends Request {
    /**
     * The new communicator.
     *
     * @throws LockstepException {@link ErrorClass#PENDING} if the request has not completed yet
     */
    Communicator communicator();
}
