package org.lockstep.spi.messaging;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The argument checks of the point-to-point calls, so that every provider rejects bad input the
 * same way and before anything is sent.
 */
public final class ArgumentChecks {
    private ArgumentChecks() {
    }

    /** A destination: a rank of the communicator or {@link Communicator#PROC_NULL}. */
    public static void checkDestination(int dest, int size) {
        if (dest != Communicator.PROC_NULL && (dest < 0 || dest >= size)) {
            throw new LockstepException(ErrorClass.RANK, "destination rank " + dest + " is outside [0, " + size + ")");
        }
    }

    /** A source: a rank, {@link Communicator#ANY_SOURCE} or {@link Communicator#PROC_NULL}. */
    public static void checkSource(int source, int size) {
        if (source != Communicator.ANY_SOURCE && source != Communicator.PROC_NULL && (source < 0 || source >= size)) {
            throw new LockstepException(ErrorClass.RANK, "source rank " + source + " is outside [0, " + size
                    + ") and is not ANY_SOURCE or PROC_NULL");
        }
    }

    /** A send tag: {@code [0, TAG_UB]}. */
    public static void checkSendTag(int tag) {
        if (tag < 0) {
            throw new LockstepException(ErrorClass.TAG, "send tag " + tag + " is negative (tags are 0.." + Communicator.TAG_UB + ")");
        }
    }

    /** A receive tag: {@code [0, TAG_UB]} or {@link Communicator#ANY_TAG}. */
    public static void checkReceiveTag(int tag) {
        if (tag < 0 && tag != Communicator.ANY_TAG) {
            throw new LockstepException(ErrorClass.TAG, "receive tag " + tag + " is negative and not ANY_TAG");
        }
    }

    /**
     * A buffer of {@code count} elements of {@code type}: returns the message's byte length
     * ({@code count * type.size()}); the buffer must reach as far as the elements' data do
     * ({@link Datatype#span}), and the type must be committed and not freed.
     *
     * @param writable whether the call writes the buffer (a receive)
     */
    public static long checkBuffer(MemorySegment buffer, long count, Datatype type, boolean writable) {
        Datatype.checkUsable(type);
        if (count < 0) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " is negative");
        }
        long bytes = type.byteLength(count);
        if (buffer == null) {
            if (bytes == 0) {
                return 0;
            }
            throw new LockstepException(ErrorClass.BUFFER, "buffer is null for a count of " + count);
        }
        long span = type.span(count);
        if (span > buffer.byteSize()) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " of " + type + " needs " + span
                    + " bytes but the buffer has " + buffer.byteSize());
        }
        if (writable && buffer.isReadOnly()) {
            throw new LockstepException(ErrorClass.BUFFER, "receive buffer is read-only");
        }
        if (!buffer.scope().isAlive()) {
            throw new LockstepException(ErrorClass.BUFFER, "buffer's memory has been freed");
        }
        return bytes;
    }
}
