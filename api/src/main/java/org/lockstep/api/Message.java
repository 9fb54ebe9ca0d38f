package org.lockstep.api;

/**
 * A message taken out of matching by a matched probe ({@code MPI_Message}, from
 * {@link Communicator#mprobe} or {@link Communicator#improbe}): no other receive or probe can match
 * it, so a thread may probe and then receive it without another thread taking it first. Receive
 * it exactly once, with {@link Communicator#mrecv} or {@link Communicator#imrecv} on the same
 * communicator; a second receive fails with {@link ErrorClass#REQUEST}.
 */
public interface Message {
    /** The message of a probe of {@link Communicator#PROC_NULL} ({@code MPI_MESSAGE_NO_PROC}): receiving it completes at once. */
    Message NO_PROC = () -> Status.of(Communicator.PROC_NULL, Communicator.ANY_TAG, 0);

    /** Source, tag and length of the message. */
    Status status();
}
