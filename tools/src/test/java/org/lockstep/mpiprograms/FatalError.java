package org.lockstep.mpiprograms;

import mpi.MPI;
import mpi.MPIException;

/** Under the default handler, MPI.ERRORS_ARE_FATAL, a failed call aborts the job with its error class as exit status. */
public final class FatalError {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        if (MPI.COMM_WORLD.getRank() == 0) {
            MPI.COMM_WORLD.send(new int[1], 1, MPI.INT, MPI.COMM_WORLD.getSize(), 0);
            throw new AssertionError("a send to a rank that does not exist returned");
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}
