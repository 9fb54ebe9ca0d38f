/*
 * One thread's memcpy bandwidth: the ceiling for any copy a transport makes, measured on a
 * buffer far larger than the caches (256 MiB) and on one that fits the last level (4 MiB).
 * Both buffers are touched before timing (first touch is slow on cloud guests); one byte of
 * the source changes before every copy so that no copy can be skipped.
 *
 *   memcpy-probe [REPEATS]      (default 10; the 4 MiB buffer is copied 64 times as often)
 *                               pin it for stable figures: taskset -c 0 memcpy-probe
 *
 * Output, one line per buffer (GB/s = bytes copied / seconds / 1e9; the memory moves twice that):
 *   MEMCPY size=B reps=N med_GBps=X best_GBps=X
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int ascending(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return a < b ? -1 : a > b ? 1 : 0;
}

static int probe(size_t bytes, int repeats) {
    char *source = aligned_alloc(4096, bytes), *target = aligned_alloc(4096, bytes);
    double *seconds = malloc((size_t)repeats * sizeof(double));
    if (!source || !target || !seconds) {
        fprintf(stderr, "memcpy-probe: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    memset(source, 0x11, bytes);
    memset(target, 0x22, bytes);
    memcpy(target, source, bytes);
    for (int r = 0; r < repeats; r++) {
        source[(size_t)r * 4099 % bytes] = (char)r;
        double start = seconds_now();
        memcpy(target, source, bytes);
        seconds[r] = seconds_now() - start;
    }
    volatile char keep = target[bytes - 1];
    (void)keep;
    qsort(seconds, (size_t)repeats, sizeof(double), ascending);
    printf("MEMCPY size=%zu reps=%d med_GBps=%.2f best_GBps=%.2f\n", bytes, repeats,
           bytes / seconds[repeats / 2] / 1e9, bytes / seconds[0] / 1e9);
    fflush(stdout);
    free(source);
    free(target);
    free(seconds);
    return 0;
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 10;
    if (repeats < 1) {
        fprintf(stderr, "usage: memcpy-probe [REPEATS]\n");
        return 2;
    }
    return probe((size_t)256 << 20, repeats) || probe((size_t)4 << 20, repeats * 64);
}
