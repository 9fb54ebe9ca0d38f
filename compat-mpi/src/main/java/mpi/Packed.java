package mpi;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/** Private packed copies of outgoing data, for the sends that must not read the user's buffer later. */
final class Packed {
    private Packed() {
    }

    /** {@code count} elements of {@code type} from {@code data}, packed into a new heap segment (sent as bytes). */
    static MemorySegment copyOf(MemorySegment data, long count, Datatype type) {
        long bytes = type.byteLength(count);
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new LockstepException(ErrorClass.NO_MEM, "a copy of " + bytes + " bytes of " + type + " is larger than a Java array");
        }
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) bytes]);
        type.pack(data, count, copy, 0);
        return copy;
    }
}
