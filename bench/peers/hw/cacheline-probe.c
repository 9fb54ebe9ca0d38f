/*
 * Cache-line hand-off probe: how long one 64-byte line takes to move from one CPU to another.
 * The two vCPUs of a cloud guest sit "near" or "far" from each other, and that changes every
 * latency figure, so latency runs are bracketed by this probe.
 *
 * Two threads, pinned to CPU_A and CPU_B, take turns on a counter alone in its line: the first
 * writes odd values and waits for the next even one, the second the reverse. Each batch of
 * ROUND_TRIPS is timed; one hand-off is the batch time / (2 * ROUND_TRIPS). One untimed batch
 * comes first.
 *
 *   cacheline-probe [CPU_A CPU_B BATCHES ROUND_TRIPS]      (defaults 0 1 2001 1000)
 *
 * Output:  C2C cpus=A,B batches=N rt_per_batch=N med_ns=X min_ns=X max_ns=X
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct {
    _Alignas(64) atomic_long turn;
    char rest_of_line[64 - sizeof(atomic_long)];
} line;

static int second_cpu, batches;
static long round_trips;

static void pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (error) {
        fprintf(stderr, "cacheline-probe: cannot pin to CPU %d (error %d)\n", cpu, error);
        exit(2);
    }
}

static double nanos_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static int ascending(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Second thread: answers each odd value with the next even one. */
static void *answer(void *unused) {
    (void)unused;
    pin_to(second_cpu);
    long hand_offs = round_trips * (batches + 1);
    for (long value = 1; value < 2 * hand_offs; value += 2) {
        while (atomic_load_explicit(&line.turn, memory_order_acquire) != value) {
        }
        atomic_store_explicit(&line.turn, value + 1, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int first_cpu = argc > 1 ? atoi(argv[1]) : 0;
    second_cpu = argc > 2 ? atoi(argv[2]) : 1;
    batches = argc > 3 ? atoi(argv[3]) : 2001;
    round_trips = argc > 4 ? atol(argv[4]) : 1000;
    if (batches < 1 || round_trips < 1) {
        fprintf(stderr, "usage: cacheline-probe [CPU_A CPU_B BATCHES ROUND_TRIPS]\n");
        return 2;
    }
    double *hand_off_ns = malloc((size_t)batches * sizeof(double));
    pthread_t answering;
    pthread_create(&answering, NULL, answer, NULL);
    pin_to(first_cpu);

    long value = 0;
    for (int batch = -1; batch < batches; batch++) {
        double start = nanos_now();
        for (long i = 0; i < round_trips; i++) {
            atomic_store_explicit(&line.turn, value + 1, memory_order_release);
            while (atomic_load_explicit(&line.turn, memory_order_acquire) != value + 2) {
            }
            value += 2;
        }
        if (batch >= 0) hand_off_ns[batch] = (nanos_now() - start) / (2.0 * round_trips);
    }
    pthread_join(answering, NULL);
    qsort(hand_off_ns, (size_t)batches, sizeof(double), ascending);
    printf("C2C cpus=%d,%d batches=%d rt_per_batch=%ld med_ns=%.1f min_ns=%.1f max_ns=%.1f\n",
           first_cpu, second_cpu, batches, round_trips, hand_off_ns[batches / 2], hand_off_ns[0],
           hand_off_ns[batches - 1]);
    free(hand_off_ns);
    return 0;
}
