package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;

/**
 * One message of the point-to-point window protocol ({@link RmaAgent}), on the window's private
 * communicator:
 *
 * <pre>
 *  0        4        8        12       16                 24                 32
 *  +--------+--------+--------+--------+------------------+------------------+------------
 *  | kind   | ticket | type   | op     | byte offset      | length (bytes)   | payload ...
 *  +--------+--------+--------+--------+------------------+------------------+------------
 * </pre>
 *
 * {@code ticket} names the origin's wait for the {@link Kind#REPLY} (a get's data, a grant, a
 * flush or unlock done); {@code type} is a predefined datatype's id (accumulates, compare-and-swap)
 * or a lock type's ordinal; {@code op} is an index into {@link #OPS}. The payload is the data of a
 * put or accumulate, origin then compare element of a compare-and-swap, or a reply's data.
 */
final class RmaFrame {
    enum Kind {
        PUT, GET, ACCUMULATE, COMPARE_AND_SWAP, LOCK, UNLOCK, FLUSH, FENCE, POST, COMPLETE, FREE, REPLY;

        /** Whether the frame reads or writes the target's memory (and so belongs to an epoch). */
        boolean isAccess() {
            return this == PUT || this == GET || this == ACCUMULATE || this == COMPARE_AND_SWAP;
        }
    }

    static final int HEADER = 32;
    private static final long KIND = 0;
    private static final long TICKET = 4;
    private static final long TYPE = 8;
    private static final long OP = 12;
    private static final long OFFSET = 16;
    private static final long LENGTH = 24;

    /** The operations an accumulate may carry, in wire order. */
    private static final List<Op> OPS = List.of(Op.MAX, Op.MIN, Op.SUM, Op.PROD, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR, Op.BXOR,
            Op.MINLOC, Op.MAXLOC, Op.REPLACE, Op.NO_OP);

    private final MemorySegment bytes;

    private RmaFrame(MemorySegment bytes) {
        this.bytes = bytes;
    }

    /** A new frame with room for {@code payload} bytes. */
    static RmaFrame of(Kind kind, int ticket, long offset, long length, long payload) {
        if (payload > Integer.MAX_VALUE - HEADER) {
            throw new LockstepException(ErrorClass.COUNT, "a one-sided transfer of " + payload + " bytes is over the 2 GiB a message of this window carries");
        }
        RmaFrame f = new RmaFrame(MemorySegment.ofArray(new byte[(int) (HEADER + payload)]));
        f.bytes.set(ValueLayout.JAVA_INT_UNALIGNED, KIND, kind.ordinal());
        f.bytes.set(ValueLayout.JAVA_INT_UNALIGNED, TICKET, ticket);
        f.bytes.set(ValueLayout.JAVA_LONG_UNALIGNED, OFFSET, offset);
        f.bytes.set(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH, length);
        return f;
    }

    /** A received frame, its header checked. */
    static RmaFrame read(MemorySegment received) {
        if (received.byteSize() < HEADER) {
            throw new LockstepException(ErrorClass.INTERN, "a window message of " + received.byteSize() + " bytes is shorter than its header");
        }
        RmaFrame f = new RmaFrame(received);
        int kind = received.get(ValueLayout.JAVA_INT_UNALIGNED, KIND);
        if (kind < 0 || kind >= Kind.values().length) {
            throw new LockstepException(ErrorClass.INTERN, "a window message of unknown kind " + kind);
        }
        return f;
    }

    RmaFrame withElement(Datatype element, Op op) {
        bytes.set(ValueLayout.JAVA_INT_UNALIGNED, TYPE, element.id());
        bytes.set(ValueLayout.JAVA_INT_UNALIGNED, OP, op == null ? -1 : OPS.indexOf(op));
        return this;
    }

    RmaFrame withArgument(int argument) {
        bytes.set(ValueLayout.JAVA_INT_UNALIGNED, TYPE, argument);
        return this;
    }

    Kind kind() {
        return Kind.values()[bytes.get(ValueLayout.JAVA_INT_UNALIGNED, KIND)];
    }

    int ticket() {
        return bytes.get(ValueLayout.JAVA_INT_UNALIGNED, TICKET);
    }

    int argument() {
        return bytes.get(ValueLayout.JAVA_INT_UNALIGNED, TYPE);
    }

    Datatype element() {
        return Datatype.ofId(argument());
    }

    Op op() {
        int code = bytes.get(ValueLayout.JAVA_INT_UNALIGNED, OP);
        if (code < 0 || code >= OPS.size()) {
            throw new LockstepException(ErrorClass.INTERN, "a window message with unknown operation " + code);
        }
        return OPS.get(code);
    }

    long offset() {
        return bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, OFFSET);
    }

    long length() {
        return bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, LENGTH);
    }

    MemorySegment payload() {
        return bytes.asSlice(HEADER);
    }

    MemorySegment bytes() {
        return bytes;
    }
}
