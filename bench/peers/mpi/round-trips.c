/*
 * The inner loop of pingpong.c as a shared library, for a Java process that has already
 * initialised MPI (Lockstep's mpi provider) to call through FFM between blocks of its own
 * round trips: the C and the Java loop then run in the same processes, on the same MPI state
 * (thread level, buffers, connections) and the same core placement, block after block, so
 * their ratio is the Java layer's cost alone (bench/peers/mpi/InterleavedPingPong.java).
 *
 *   int lockstep_c_round_trips(int bytes, int count, void *out, void *in, long long *round_trip_ns)
 *
 * Ranks 0 and 1 of MPI_COMM_WORLD make `count` round trips of `bytes` bytes (tag 7): rank 0
 * sends from `out` and receives into `in`, timing each round trip with CLOCK_MONOTONIC (what
 * System.nanoTime reads) into round_trip_ns; rank 1 receives into `in` and sends from `out`.
 * Other ranks return at once. Returns MPI_SUCCESS or the first MPI error code.
 */
#include <mpi.h>
#include <time.h>

static long long nanos_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int lockstep_c_round_trips(int bytes, int count, void *out, void *in, long long *round_trip_ns) {
    int rank, rc;
    rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc != MPI_SUCCESS) return rc;
    if (rank == 1) {
        for (int i = 0; i < count; i++) {
            rc = MPI_Recv(in, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) return rc;
            rc = MPI_Send(out, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) return rc;
        }
        return MPI_SUCCESS;
    }
    if (rank != 0) return MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        long long start = nanos_now();
        rc = MPI_Send(out, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_Recv(in, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        round_trip_ns[i] = nanos_now() - start;
    }
    return MPI_SUCCESS;
}
