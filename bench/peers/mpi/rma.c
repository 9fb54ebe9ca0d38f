/*
 * One-sided communication, the peer of `lockstep bench rma` (same rows, same timing): rank 0 puts
 * or gets `bytes` to or from rank 1's part of a window of MPI_Win_allocate, per iteration closed
 * by MPI_Win_fence at both ranks (mode fence) or in its own MPI_Win_lock(SHARED)/MPI_Win_unlock
 * epoch while rank 1 waits in a barrier (mode lock). Then a window of MPI_Win_allocate_shared:
 * rank 0 sums (load) or writes (store) 4096 longs of rank 1's part through MPI_Win_shared_query's
 * pointer (mode shared), against the same loop over malloc'd memory (mode plain). Rank 0 prints the
 * median and p99 per row; other ranks (4-rank runs) only take part in the fences and barriers.
 *
 * Build: mpicc -O2 -o rma bench/peers/mpi/rma.c
 * Run:   mpirun -np 2 ./rma [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS 4096

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void report(const char *mode, const char *op, long bytes, int np, int iters, double *us) {
    qsort(us, iters, sizeof(double), cmp);
    printf("RMA mode=%s op=%s bytes=%ld np=%d iters=%d med_us=%.3f p99_us=%.3f\n", mode, op, bytes, np, iters, us[iters / 2],
           us[(int) (iters * 0.99)]);
    fflush(stdout);
}

/* One row of put/get under fence or lock (run twice: warm-up, then the timed run). */
static void transfer(MPI_Win win, char *buf, long bytes, int rank, int np, int lock, int get, int iters, double *us) {
    /* a fence epoch to start from, or none for passive target */
    MPI_Win_fence(lock ? MPI_MODE_NOSUCCEED : 0, win);
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (lock) {
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                if (get) {
                    MPI_Get(buf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
                } else {
                    MPI_Put(buf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
                }
                MPI_Win_unlock(1, win);
            }
        } else {
            if (rank == 0) {
                if (get) {
                    MPI_Get(buf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
                } else {
                    MPI_Put(buf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
                }
            }
            MPI_Win_fence(0, win);
        }
        us[i] = (MPI_Wtime() - t0) * 1e6;
    }
    if (lock) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static volatile long sink;

static void memory(long *words, int store, int iters, double *us) {
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        if (store) {
            for (int w = 0; w < WORDS; w++) {
                words[w] = w + i;
            }
        } else {
            long sum = 0;
            for (int w = 0; w < WORDS; w++) {
                sum += words[w];
            }
            sink = sum;
        }
        us[i] = (MPI_Wtime() - t0) * 1e6;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    double *us = malloc(sizeof(double) * iters);
    long sizes[] = {8, 1 << 20};
    char *buf = malloc(1 << 20);
    memset(buf, 7, 1 << 20);
    char *base;
    MPI_Win win;
    MPI_Win_allocate(1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    for (int s = 0; s < 2; s++) {
        int n = sizes[s] > 8 ? iters / 10 : iters;
        for (int lock = 0; lock < 2; lock++) {
            for (int get = 0; get < 2; get++) {
                transfer(win, buf, sizes[s], rank, np, lock, get, n, us);
                transfer(win, buf, sizes[s], rank, np, lock, get, n, us);
                if (rank == 0) {
                    report(lock ? "lock" : "fence", get ? "get" : "put", sizes[s], np, n, us);
                }
            }
        }
    }
    MPI_Win_free(&win);

    long *mine;
    MPI_Win shared;
    MPI_Win_allocate_shared(WORDS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &shared);
    MPI_Win_fence(0, shared);
    long *plain = calloc(WORDS, sizeof(long));
    if (rank == 0) {
        MPI_Aint size;
        int unit;
        long *neighbour;
        MPI_Win_shared_query(shared, 1, &size, &unit, &neighbour);
        for (int store = 0; store < 2; store++) {
            memory(neighbour, store, iters, us);
            memory(neighbour, store, iters, us);
            report("shared", store ? "store" : "load", WORDS * 8, np, iters, us);
            memory(plain, store, iters, us);
            memory(plain, store, iters, us);
            report("plain", store ? "store" : "load", WORDS * 8, np, iters, us);
        }
    }
    MPI_Win_fence(0, shared);
    MPI_Win_free(&shared);
    free(plain);
    free(buf);
    free(us);
    MPI_Finalize();
    return 0;
}
