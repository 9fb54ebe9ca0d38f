package org.lockstep.api;

/**
 * A received message was longer than the receive buffer ({@code MPI_ERR_TRUNCATE}). The buffer
 * holds the first part of the message; {@link #status()} says who sent it, with which tag, and how
 * many bytes were delivered. The message is consumed: it will not match another receive.
 * A provider over a library that keeps nothing of a truncated receive, when told to receive as
 * MPI does, delivers nothing and cannot know the length ({@link #UNKNOWN_LENGTH}).
 */
public final class TruncationException extends LockstepException {
    private static final long serialVersionUID = 1L;
    /** {@link #messageBytes()} when the provider cannot know how long the message was. */
    public static final long UNKNOWN_LENGTH = -1;

    private final transient Status status;
    private final long messageBytes;

    public TruncationException(Status status, long messageBytes) {
        super(ErrorClass.TRUNCATE, (messageBytes == UNKNOWN_LENGTH ? "message of unknown length" : "message of " + messageBytes + " bytes")
                + " from rank " + status.source() + " with tag " + status.tag() + " truncated to the receive buffer's "
                + status.byteCount() + " bytes");
        this.status = status;
        this.messageBytes = messageBytes;
    }

    /** The status of the truncated receive (its error is {@link ErrorClass#TRUNCATE}). */
    public Status status() {
        return status;
    }

    /** Length of the whole message in bytes, or {@link #UNKNOWN_LENGTH}. */
    public long messageBytes() {
        return messageBytes;
    }
}
