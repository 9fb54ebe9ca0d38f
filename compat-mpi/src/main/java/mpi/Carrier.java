package mpi;

import java.lang.foreign.MemorySegment;

/**
 * The Lockstep datatype that carries a data-moving collective whose two sides name their data
 * with different datatypes: the common one when both are carried alike, else bytes (the data's
 * byte length must then agree, as MPI's type matching asks). Counts and displacements are
 * converted into elements of the carrier.
 */
final class Carrier {
    /** A zero-length buffer for the arguments MPI says are not significant on this rank. */
    static final MemorySegment NOT_SIGNIFICANT = MemorySegment.ofArray(new byte[0]);

    private Carrier() {
    }

    static org.lockstep.api.Datatype of(Datatype a, Datatype b) {
        return a.wire == b.wire ? a.wire : org.lockstep.api.Datatype.BYTE;
    }

    /** {@code count} elements of {@code type} in elements of {@code carrier}. */
    static long units(String call, org.lockstep.api.Datatype carrier, int count, Datatype type) throws MPIException {
        if (type.isNull()) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the datatype is MPI.DATATYPE_NULL or was freed");
        }
        if (count < 0) {
            throw ErrorClasses.argument(ErrorClasses.COUNT, call, "negative count " + count);
        }
        return (long) count * type.byteSize() / carrier.size();
    }

    static long[] units(String call, org.lockstep.api.Datatype carrier, int[] counts, Datatype type) throws MPIException {
        if (counts == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "an array of counts or displacements is null");
        }
        long[] result = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            result[i] = (long) counts[i] * type.byteSize() / carrier.size();
        }
        return result;
    }

    /** Fails unless both sides move the same number of bytes. */
    static void checkSameLength(String call, long sendUnits, long recvUnits) throws MPIException {
        if (sendUnits != recvUnits) {
            throw ErrorClasses.argument(ErrorClasses.TRUNCATE, call, "the send side gives " + sendUnits
                    + " elements and the receive side takes " + recvUnits + ": their type signatures must match");
        }
    }
}
