package org.lockstep.mpi.abi;

/** The predefined MPI reduction operations the provider uses; {@link MpiAbi} gives their handles. */
public enum NativeOp {
    MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC,
    /** {@code MPI_REPLACE} and {@code MPI_NO_OP}: one-sided accumulates only. */
    REPLACE, NO_OP
}
