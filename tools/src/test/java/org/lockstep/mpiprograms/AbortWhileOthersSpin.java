package org.lockstep.mpiprograms;

import mpi.MPI;
import mpi.MPIException;

/**
 * Rank 0 aborts the job with code 42 while every other rank spins in a loop of its own that makes
 * no MPI call: only the abort can end the job, and its exit status must be 42.
 */
public final class AbortWhileOthersSpin {
    /** Read on every turn of the loop, so that the loop cannot be compiled away; never set. */
    private static volatile boolean released;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        MPI.COMM_WORLD.barrier();
        if (MPI.COMM_WORLD.getRank() == 0) {
            MPI.COMM_WORLD.abort(42);
            throw new AssertionError("MPI_Abort returned");
        }
        long turns = 0;
        while (!released) {
            turns++;
            Thread.onSpinWait();
        }
        System.out.println("released after " + turns + " turns");
    }
}
