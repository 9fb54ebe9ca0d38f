/*
 * Ping-pong between ranks 0 and 1 of MPI_COMM_WORLD, the C side of Lockstep's
 * `lockstep bench pingpong --processes 2`.
 *
 * Rank 0 times every round trip on its own (CLOCK_MONOTONIC) and reports half of it as
 * the one-way latency; the two buffers are allocated once and reused, so every size is
 * measured cache-warm. Each size runs a tenth of its round trips (at least 10) untimed
 * first.
 *
 *   mpirun -np 2 pingpong [SCALE]      SCALE multiplies the round trips (default 1)
 *
 * PINGPONG_STATE=provider puts the library in the state Lockstep's mpi provider runs it in:
 * MPI_Init_thread with MPI_THREAD_MULTIPLE, and the ping-pong on a duplicate of MPI_COMM_WORLD
 * (the provider's world is one); =multiple and =dup each do one of the two. Runs with and
 * without it give what that state costs in C, apart from the Java layer
 * (InterleavedPingPong.java measures that one).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct size_plan {
    int bytes;
    int round_trips;
};

static const struct size_plan plans[] = {
    {0, 20000}, {8, 20000}, {64, 20000}, {512, 20000}, {4096, 20000},
    {32768, 10000}, {262144, 2000}, {1048576, 1000}, {4194304, 300}, {16777216, 100},
};
#define PLAN_COUNT ((int)(sizeof plans / sizeof plans[0]))
#define LARGEST 16777216

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int ascending(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return a < b ? -1 : a > b ? 1 : 0;
}

static MPI_Comm comm;

static void measure(int rank, const struct size_plan *plan, double scale,
                    char *out, char *in, double *one_way_us) {
    int timed = (int)(plan->round_trips * scale);
    if (timed < 20) timed = 20;
    int untimed = timed / 10 > 10 ? timed / 10 : 10;
    MPI_Barrier(comm);
    if (rank == 1) {
        for (int i = 0; i < untimed + timed; i++) {
            MPI_Recv(in, plan->bytes, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
            MPI_Send(out, plan->bytes, MPI_BYTE, 0, 7, comm);
        }
        return;
    }
    if (rank != 0) return;
    for (int i = -untimed; i < timed; i++) {
        double start = seconds_now();
        MPI_Send(out, plan->bytes, MPI_BYTE, 1, 7, comm);
        MPI_Recv(in, plan->bytes, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
        double elapsed = seconds_now() - start;
        if (i >= 0) one_way_us[i] = elapsed * 1e6 / 2;
    }
    qsort(one_way_us, (size_t)timed, sizeof(double), ascending);
    double median = one_way_us[timed / 2];
    printf("PP size=%d iters=%d med_us=%.3f p99_us=%.3f min_us=%.3f mbps=%.1f\n",
           plan->bytes, timed, median, one_way_us[(int)(timed * 0.99)], one_way_us[0],
           plan->bytes > 0 ? plan->bytes / median : 0.0);
    fflush(stdout);
}

int main(int argc, char **argv) {
    const char *state = getenv("PINGPONG_STATE");
    int multiple = state != NULL && (strcmp(state, "provider") == 0 || strcmp(state, "multiple") == 0);
    int dup = state != NULL && (strcmp(state, "provider") == 0 || strcmp(state, "dup") == 0);
    if (multiple) {
        int granted;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &granted);
    } else {
        MPI_Init(&argc, &argv);
    }
    comm = MPI_COMM_WORLD;
    if (dup) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks (mpirun -np 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (scale <= 0) scale = 1.0;

    char *out = malloc(LARGEST), *in = malloc(LARGEST);
    size_t most = (size_t)(20000 * (scale > 1 ? scale : 1)) + 32;
    double *one_way_us = malloc(most * sizeof(double));
    if (!out || !in || !one_way_us) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(out, 0x5a, LARGEST);
    memset(in, 0, LARGEST);
    for (int p = 0; p < PLAN_COUNT; p++) measure(rank, &plans[p], scale, out, in, one_way_us);

    MPI_Barrier(comm);
    if (dup) MPI_Comm_free(&comm);
    free(out);
    free(in);
    free(one_way_us);
    MPI_Finalize();
    return 0;
}
