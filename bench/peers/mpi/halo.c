/*
 * Halo exchange of a 2-D Jacobi stencil, the peer of `lockstep bench halo` (same grid, same timing):
 * each rank owns an n x n block of doubles with a one-cell halo, on a px x py process grid
 * (2 ranks: 2 x 1, 4 ranks: 2 x 2). Rows go as contiguous doubles, columns as an MPI vector
 * type. Variant "vector": Irecv x4, Isend x4, Waitall per exchange; "persistent": the same
 * eight requests made once with Send_init/Recv_init, then Startall + Waitall per exchange;
 * "neighbor": over a py x px Cartesian communicator (MPI_Cart_create once for all rows, no periods), the four edges
 * packed into one buffer (north, south, west, east: MPI's neighbour order), one
 * MPI_Neighbor_alltoall, and the four halos unpacked from the other (PROC_NULL ones left alone);
 * "alltoall" (only when named): that MPI_Neighbor_alltoall of the packed edges alone, no packing or unpacking.
 * Between timed exchanges: one untimed Jacobi sweep and an untimed barrier. Each rank keeps its
 * median and p99 per size; rank 0 prints the maximum over ranks.
 *
 * Build: bash bench/peers/setup.sh mpi (or mpicc -O2 -o halo bench/peers/mpi/halo.c)
 * Run:   mpirun -np 2 ./halo [n,n,...] [seconds-per-row] [variant,variant,...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static MPI_Comm grid;
typedef struct {
    int n, px, py, cx, cy, north, south, west, east;
    double *grid, *next;
    MPI_Datatype column;
    MPI_Comm cart;
    double *edges, *halos;
} Block;

#define AT(b, r, c) ((b)->grid[(size_t) (r) * ((b)->n + 2) + (c)])

static void setup(Block *b, int n, int rank, int size) {
    b->n = n;
    b->px = size >= 4 ? 2 : size;
    b->py = size / b->px;
    b->cx = rank % b->px;
    b->cy = rank / b->px;
    b->west = b->cx > 0 ? rank - 1 : MPI_PROC_NULL;
    b->east = b->cx < b->px - 1 ? rank + 1 : MPI_PROC_NULL;
    b->north = b->cy > 0 ? rank - b->px : MPI_PROC_NULL;
    b->south = b->cy < b->py - 1 ? rank + b->px : MPI_PROC_NULL;
    size_t cells = (size_t) (n + 2) * (n + 2);
    b->grid = malloc(cells * sizeof(double));
    b->next = malloc(cells * sizeof(double));
    for (size_t i = 0; i < cells; i++) {
        b->grid[i] = (double) (rank * 7 + i % 13);
        b->next[i] = 0;
    }
    MPI_Type_vector(n, 1, n + 2, MPI_DOUBLE, &b->column);
    MPI_Type_commit(&b->column);
    b->cart = grid;
    b->edges = malloc(4 * (size_t) n * sizeof(double));
    b->halos = malloc(4 * (size_t) n * sizeof(double));
}

/* One exchange of the "neighbor" variant: pack the edges, MPI_Neighbor_alltoall, unpack the halos. */
static void neighbor_exchange(Block *b) {
    int n = b->n, w = n + 2;
    double *g = b->grid, *e = b->edges, *h = b->halos;
    memcpy(&e[0], &g[w + 1], n * sizeof(double));
    memcpy(&e[n], &g[(size_t) n * w + 1], n * sizeof(double));
    for (int r = 0; r < n; r++) {
        e[2 * n + r] = g[(size_t) (r + 1) * w + 1];
        e[3 * n + r] = g[(size_t) (r + 1) * w + n];
    }
    MPI_Neighbor_alltoall(e, n, MPI_DOUBLE, h, n, MPI_DOUBLE, b->cart);
    if (b->north != MPI_PROC_NULL) memcpy(&g[1], &h[0], n * sizeof(double));
    if (b->south != MPI_PROC_NULL) memcpy(&g[(size_t) (n + 1) * w + 1], &h[n], n * sizeof(double));
    if (b->west != MPI_PROC_NULL) for (int r = 0; r < n; r++) g[(size_t) (r + 1) * w] = h[2 * n + r];
    if (b->east != MPI_PROC_NULL) for (int r = 0; r < n; r++) g[(size_t) (r + 1) * w + n + 1] = h[3 * n + r];
}

/* The eight operations of one exchange, in the order the Java side posts them. */
static void post(Block *b, MPI_Request *req, int persistent) {
    int n = b->n, w = n + 2;
    double *g = b->grid;
    void *rbuf[4] = {&g[1], &g[(size_t) (n + 1) * w + 1], &g[w], &g[w + n + 1]};
    void *sbuf[4] = {&g[w + 1], &g[(size_t) n * w + 1], &g[w + 1], &g[w + n]};
    int peer[4] = {b->north, b->south, b->west, b->east};
    int count[4] = {n, n, 1, 1};
    MPI_Datatype type[4] = {MPI_DOUBLE, MPI_DOUBLE, b->column, b->column};
    /* tags name the direction of travel: what goes north arrives from the south */
    int sendTag[4] = {0, 1, 2, 3}, recvTag[4] = {1, 0, 3, 2};
    for (int i = 0; i < 4; i++) {
        if (persistent) {
            MPI_Recv_init(rbuf[i], count[i], type[i], peer[i], recvTag[i], MPI_COMM_WORLD, &req[i]);
        } else {
            MPI_Irecv(rbuf[i], count[i], type[i], peer[i], recvTag[i], MPI_COMM_WORLD, &req[i]);
        }
    }
    for (int i = 0; i < 4; i++) {
        if (persistent) {
            MPI_Send_init(sbuf[i], count[i], type[i], peer[i], sendTag[i], MPI_COMM_WORLD, &req[4 + i]);
        } else {
            MPI_Isend(sbuf[i], count[i], type[i], peer[i], sendTag[i], MPI_COMM_WORLD, &req[4 + i]);
        }
    }
}

static void sweep(Block *b) {
    int n = b->n, w = n + 2;
    for (int r = 1; r <= n; r++) {
        for (int c = 1; c <= n; c++) {
            b->next[(size_t) r * w + c] = 0.25 * (AT(b, r - 1, c) + AT(b, r + 1, c) + AT(b, r, c - 1) + AT(b, r, c + 1));
        }
    }
    for (int r = 1; r <= n; r++) {
        memcpy(&b->grid[(size_t) r * w + 1], &b->next[(size_t) r * w + 1], n * sizeof(double));
    }
}

static void exchange(Block *b, MPI_Request *req, int persistent, int neighbor) {
    if (neighbor == 2) {
        MPI_Neighbor_alltoall(b->edges, b->n, MPI_DOUBLE, b->halos, b->n, MPI_DOUBLE, b->cart);
        return;
    }
    if (neighbor) {
        neighbor_exchange(b);
        return;
    }
    if (persistent) {
        MPI_Startall(8, req);
    } else {
        post(b, req, 0);
    }
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
}

static void row(const char *variant, int n, double seconds, int rank, int size) {
    Block b;
    setup(&b, n, rank, size);
    int persistent = strcmp(variant, "persistent") == 0;
    int neighbor = strcmp(variant, "neighbor") == 0 ? 1 : strcmp(variant, "alltoall") == 0 ? 2 : 0;
    MPI_Request req[8];
    if (persistent) {
        post(&b, req, 1);
    }
    /* calibrate: the median of 21 whole steps (exchange, sweep, barrier) sets the number of timed ones */
    double cal[21];
    for (int i = 0; i < 21; i++) {
        double t0 = MPI_Wtime();
        exchange(&b, req, persistent, neighbor);
        sweep(&b);
        MPI_Barrier(MPI_COMM_WORLD);
        cal[i] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(cal, 21, sizeof(double), cmp);
    double slowest;
    MPI_Allreduce(&cal[10], &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int iters = (int) (seconds * 1e6 / (slowest > 0.01 ? slowest : 0.01));
    if (iters < 20) iters = 20;
    if (iters > 5000) iters = 5000;
    double *us = malloc(iters * sizeof(double));
    for (int i = 0; i < iters; i++) {
        sweep(&b);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        exchange(&b, req, persistent, neighbor);
        us[i] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(us, iters, sizeof(double), cmp);
    double local[2] = {us[iters / 2], us[(int) (iters * 0.99)]}, max[2];
    MPI_Reduce(local, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("HALO variant=%s n=%d np=%d iters=%d med_us=%.3f p99_us=%.3f\n", variant, n, size, iters, max[0], max[1]);
        fflush(stdout);
    }
    if (persistent) {
        for (int i = 0; i < 8; i++) MPI_Request_free(&req[i]);
    }
    MPI_Type_free(&b.column);
    free(b.edges);
    free(b.halos);
    free(us);
    free(b.grid);
    free(b.next);
}

/* Whether the comma-separated list names the variant. */
static int listed(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0')) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char sizes[256] = "64,256,1024";
    if (argc > 1) {
        strncpy(sizes, argv[1], sizeof sizes - 1);
    }
    double seconds = argc > 2 ? atof(argv[2]) : 0.5;
    /* the variants to time, as `lockstep bench halo --variants` (default: all three) */
    const char *only = argc > 3 ? argv[3] : "vector,persistent,neighbor";
    /* one grid for every row, as a stencil code makes it once (and as lockstep bench halo does) */
    int px = size >= 4 ? 2 : size, dims[2] = {size / px, px}, periods[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    const char *variants[4] = {"vector", "persistent", "neighbor", "alltoall"};
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int n = atoi(tok);
        for (int v = 0; v < 4; v++) {
            if (listed(only, variants[v])) {
                row(variants[v], n, seconds, rank, size);
            }
        }
    }
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
