package org.lockstep.mpi.abi;

/**
 * The predefined MPI datatypes the provider uses, by meaning. Each {@link MpiAbi} says which
 * handle a library gives each of them.
 */
public enum NativeType {
    BYTE, INT8, UINT8, C_BOOL, INT16, UINT16, INT32, INT64, FLOAT, DOUBLE,
    /** {@code MPI_2INT}: (int, int). */
    INT_INT,
    /** {@code MPI_FLOAT_INT}: (float, int), 8 bytes without padding. */
    FLOAT_INT
}
