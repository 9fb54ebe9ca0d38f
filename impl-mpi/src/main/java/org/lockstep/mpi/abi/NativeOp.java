package org.lockstep.mpi.abi;

/** The predefined MPI reduction operations the provider uses; {@link MpiAbi} gives their handles. */
public enum NativeOp {
    MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC
}
