/**
 * Providers over a native MPI library (Open MPI, MPICH) bound at run time with the FFM API: {@code mpi}
 * (every rank through MPI) and {@code hybrid} (the shared device within a host, found through the
 * SPI by name, and MPI between hosts). A provider module: it exports nothing.
 */
module org.lockstep.mpi {
    requires org.lockstep.spi;

    provides org.lockstep.api.LockstepProvider with org.lockstep.mpi.MpiProvider, org.lockstep.mpi.hybrid.HybridProvider;
}
