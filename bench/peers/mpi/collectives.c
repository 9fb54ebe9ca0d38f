/*
 * Collective latency, the C side of `lockstep bench collectives`: barrier, bcast of 8 B and
 * 1 MiB, allreduce (MPI_SUM over doubles) of 8 B and 1 MiB, alltoall of 8 B and 64 KiB per rank.
 *
 * Every rank times each of its own calls. Calls other than barrier are separated by an
 * untimed barrier, so that consecutive calls do not overlap. The number of timed calls is
 * chosen from ten trial calls so that a row takes about BUDGET seconds (between 20 and
 * 20 000 calls), after a tenth of that (at least 5) untimed.
 *
 *   mpirun -np N collectives [BUDGET]      BUDGET in seconds per row (default 0.4)
 *
 * Rank 0 prints one line per row; each figure is the maximum over the ranks of that rank's own
 * median, 99th percentile and mean:
 *   COLL op=NAME bytes=B np=N iters=N med_us=X p99_us=X avg_us=X
 *
 * COLLECTIVES_STATE=provider runs in the state Lockstep's mpi provider runs the library in:
 * MPI_Init_thread with MPI_THREAD_MULTIPLE and the collectives on a duplicate of MPI_COMM_WORLD
 * (the library's own settings, such as Open MPI's btl flags, are the launcher's to pass).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum operation { BARRIER, BCAST, ALLREDUCE, ALLTOALL };

struct row {
    const char *name;
    enum operation operation;
    int bytes;
};

static const struct row rows[] = {
    {"barrier", BARRIER, 0},
    {"bcast", BCAST, 8},         {"bcast", BCAST, 1 << 20},
    {"allreduce", ALLREDUCE, 8}, {"allreduce", ALLREDUCE, 1 << 20},
    {"alltoall", ALLTOALL, 8},   {"alltoall", ALLTOALL, 1 << 16},
};
#define ROW_COUNT ((int)(sizeof rows / sizeof rows[0]))

static char *send_buffer, *receive_buffer;
static MPI_Comm comm;

static double micros_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e6 + (double)now.tv_nsec * 1e-3;
}

static int ascending(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return a < b ? -1 : a > b ? 1 : 0;
}

static void call(const struct row *row) {
    switch (row->operation) {
    case BARRIER:
        MPI_Barrier(comm);
        break;
    case BCAST:
        MPI_Bcast(send_buffer, row->bytes, MPI_BYTE, 0, comm);
        break;
    case ALLREDUCE:
        MPI_Allreduce(send_buffer, receive_buffer, row->bytes / 8, MPI_DOUBLE, MPI_SUM, comm);
        break;
    case ALLTOALL:
        MPI_Alltoall(send_buffer, row->bytes, MPI_BYTE, receive_buffer, row->bytes, MPI_BYTE, comm);
        break;
    }
}

/* One call, then the separating barrier that keeps calls apart (none after a barrier). */
static void call_apart(const struct row *row) {
    call(row);
    if (row->operation != BARRIER) MPI_Barrier(comm);
}

static void measure(const struct row *row, double budget_seconds, int rank, int ranks) {
    MPI_Barrier(comm);
    double trial_start = micros_now();
    for (int i = 0; i < 10; i++) call_apart(row);
    double trial_us = (micros_now() - trial_start) / 10, slowest_trial_us;
    MPI_Allreduce(&trial_us, &slowest_trial_us, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (slowest_trial_us < 0.01) slowest_trial_us = 0.01;
    long timed = (long)(budget_seconds * 1e6 / slowest_trial_us);
    if (timed < 20) timed = 20;
    if (timed > 20000) timed = 20000;
    long untimed = timed / 10 > 5 ? timed / 10 : 5;

    for (long i = 0; i < untimed; i++) call_apart(row);
    MPI_Barrier(comm);
    double *call_us = malloc((size_t)timed * sizeof(double)), total_us = 0;
    for (long i = 0; i < timed; i++) {
        double start = micros_now();
        call(row);
        call_us[i] = micros_now() - start;
        total_us += call_us[i];
        if (row->operation != BARRIER) MPI_Barrier(comm);
    }
    qsort(call_us, (size_t)timed, sizeof(double), ascending);
    double mine[3] = {call_us[timed / 2], call_us[(long)(timed * 0.99)], total_us / timed};
    double worst[3];
    MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        printf("COLL op=%s bytes=%d np=%d iters=%ld med_us=%.3f p99_us=%.3f avg_us=%.3f\n",
               row->name, row->bytes, ranks, timed, worst[0], worst[1], worst[2]);
        fflush(stdout);
    }
    free(call_us);
}

int main(int argc, char **argv) {
    const char *state = getenv("COLLECTIVES_STATE");
    int provider = state != NULL && strcmp(state, "provider") == 0;
    if (provider) {
        int granted;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &granted);
    } else {
        MPI_Init(&argc, &argv);
    }
    comm = MPI_COMM_WORLD;
    if (provider) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    double budget_seconds = argc > 1 ? atof(argv[1]) : 0.4;
    if (budget_seconds <= 0) budget_seconds = 0.4;

    /* alltoall needs 64 KiB per rank; bcast and allreduce 1 MiB */
    size_t capacity = (size_t)ranks << 16;
    if (capacity < (1u << 20)) capacity = 1u << 20;
    send_buffer = calloc(capacity, 1);
    receive_buffer = calloc(capacity, 1);
    if (!send_buffer || !receive_buffer) {
        fprintf(stderr, "collectives: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < ROW_COUNT; r++) measure(&rows[r], budget_seconds, rank, ranks);

    free(send_buffer);
    free(receive_buffer);
    if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
