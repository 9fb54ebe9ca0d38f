/**
 * The {@code mpi} package of the Open MPI 4.1 Java bindings, implemented over Lockstep's API
 * only, so that existing {@code mpi.*} programs compile and run unchanged on every provider:
 * threads, launched processes, EM-BSP and native MPI.
 */
module org.lockstep.compat.mpi {
    requires org.lockstep.api;

    exports mpi;
}
