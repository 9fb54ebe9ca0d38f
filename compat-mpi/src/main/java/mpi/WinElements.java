package mpi;

import java.nio.Buffer;

/**
 * How the bindings count a window's memory and an access's elements: a window's size and
 * displacement unit in elements of its (direct) buffer, and an access whose origin and target
 * describe the same elements (same element type and count), which is what Lockstep's windows move.
 */
final class WinElements {
    private WinElements() {
    }

    /** Bytes in an element of a window's buffer; a null buffer (the allocating form) counts bytes. */
    static int elementBytes(Buffer base) {
        if (base == null) {
            return 1; // the allocating form: the bindings would fail on null; here it counts bytes
        }
        if (!base.isDirect()) {
            throw new IllegalArgumentException("The buffer must be direct.");
        }
        return Buffers.elementBytes(base);
    }

    /** The element count of an access whose origin and target describe the same elements; TYPE otherwise. */
    static long of(String call, int orgCount, Datatype orgType, int targetCount, Datatype targetType) throws MPIException {
        long n = orgType.wireCount(call, orgCount);
        if (orgType.wire != targetType.wire || n != targetType.wireCount(call, targetCount)) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "origin (" + orgCount + " " + orgType + ") and target (" + targetCount
                    + " " + targetType + ") must be the same elements");
        }
        return n;
    }
}
