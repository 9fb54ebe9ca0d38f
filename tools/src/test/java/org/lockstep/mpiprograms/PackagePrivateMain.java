package org.lockstep.mpiprograms;

import mpi.MPI;
import mpi.MPIException;

/** A main class that is not public, which the java launcher runs all the same. */
final class PackagePrivateMain {
    private PackagePrivateMain() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Check.passed("package-private main");
        MPI.Finalize();
    }
}
