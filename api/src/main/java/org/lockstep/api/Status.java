package org.lockstep.api;

/**
 * What a completed receive (or a probe) found: the source and tag of the message, its length,
 * whether the request was cancelled, and the error class it completed with, if any.
 *
 * @param source      rank of the sender in the communicator ({@link Communicator#PROC_NULL} for a receive from it)
 * @param tag         tag of the message
 * @param byteCount   bytes delivered into the buffer (for a probe: bytes in the message)
 * @param cancelled   whether the request was cancelled instead of completing
 * @param error       {@code null} on success; {@link ErrorClass#TRUNCATE} when the message was longer than the buffer
 */
public record Status(int source, int tag, long byteCount, boolean cancelled, ErrorClass error) {
    /** What {@link #count(Datatype)} returns when the byte count is not a whole number of elements. */
    public static final long UNDEFINED = -32766;

    public static Status of(int source, int tag, long byteCount) {
        return new Status(source, tag, byteCount, false, null);
    }

    /** The empty status of an inactive persistent request: any source, any tag, no bytes, no error. */
    public static Status empty() {
        return new Status(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0, false, null);
    }

    /** Status of a request that was cancelled. */
    public static Status ofCancelled() {
        return new Status(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0, true, null);
    }

    /** Number of whole elements of {@code type} received, or {@link #UNDEFINED} ({@code MPI_Get_count}). */
    public long count(Datatype type) {
        long size = type.size();
        if (size == 0) {
            return byteCount == 0 ? 0 : UNDEFINED;
        }
        return byteCount % size == 0 ? byteCount / size : UNDEFINED;
    }

    /**
     * Number of basic elements (of the predefined types) received, counting those of a partly
     * received last element of {@code type}, or {@link #UNDEFINED} when the bytes received end
     * inside a basic element ({@code MPI_Get_elements}).
     */
    public long elements(Datatype type) {
        return type.basicElements(byteCount);
    }

    /** Whether the operation completed without error. */
    public boolean isSuccess() {
        return error == null;
    }
}
