/**
 * Providers over a native MPI library (Open MPI, MPICH) bound at run time with the FFM API: {@code mpi}
 * (every rank through MPI). A provider module: it exports nothing.
 */
module org.lockstep.mpi {
    requires org.lockstep.spi;

    provides org.lockstep.api.LockstepProvider with org.lockstep.mpi.MpiProvider;
}
