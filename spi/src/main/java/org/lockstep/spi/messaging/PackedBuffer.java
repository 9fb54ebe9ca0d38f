package org.lockstep.spi.messaging;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A buffer of {@code count} elements of a datatype seen as the packed bytes a message carries:
 * the buffer itself when the type is contiguous, else a private copy, packed from the buffer when
 * it is read ({@link #forReading}) and unpacked into it when the operation has written it
 * ({@link #unpack}).
 */
public final class PackedBuffer {
    private final MemorySegment user;
    private final long count;
    private final Datatype type;
    private final MemorySegment packed;
    private final long bytes;

    private PackedBuffer(MemorySegment user, long count, Datatype type, MemorySegment packed, long bytes) {
        this.user = user;
        this.count = count;
        this.type = type;
        this.packed = packed;
        this.bytes = bytes;
    }

    /** The packed form of checked arguments whose data are read (a send buffer, an in-place input). */
    public static PackedBuffer forReading(MemorySegment user, long count, Datatype type) {
        PackedBuffer b = of(user, count, type);
        if (b.packed != user) {
            type.packAll(user, count, b.packed);
        }
        return b;
    }

    /** The packed form of checked arguments that are only written (a receive buffer). */
    public static PackedBuffer forWriting(MemorySegment user, long count, Datatype type) {
        return of(user, count, type);
    }

    private static PackedBuffer of(MemorySegment user, long count, Datatype type) {
        long bytes = type.byteLength(count);
        if (type.isContiguous()) {
            return new PackedBuffer(user, count, type, user, bytes);
        }
        return new PackedBuffer(user, count, type, scratch(bytes), bytes);
    }

    /** Fresh heap memory for {@code bytes} packed bytes, 8-byte aligned. */
    public static MemorySegment scratch(long bytes) {
        if (bytes > (Integer.MAX_VALUE - 8L) * Long.BYTES) {
            throw new LockstepException(ErrorClass.NO_MEM, "cannot stage " + bytes + " packed bytes in process memory");
        }
        return MemorySegment.ofArray(new long[(int) ((bytes + Long.BYTES - 1) / Long.BYTES)]).asSlice(0, bytes);
    }

    /** What the transport reads or writes: {@link #bytes()} packed bytes. */
    public MemorySegment segment() {
        return packed;
    }

    public long bytes() {
        return bytes;
    }

    /** Whether the data live in a private copy. */
    public boolean isCopy() {
        return packed != user;
    }

    /** Packs the user's buffer into the private copy again (a persistent send's next start). */
    public void pack() {
        if (packed != user) {
            type.packAll(user, count, packed);
        }
    }

    /** Copies the whole packed copy back into the user's buffer. */
    public void unpack() {
        unpack(bytes);
    }

    /** Copies the first {@code received} packed bytes back (a short or truncated receive). */
    public void unpack(long received) {
        if (packed != user && received > 0) {
            type.unpackPartial(packed, 0, user, count, Math.min(received, bytes));
        }
    }
}
