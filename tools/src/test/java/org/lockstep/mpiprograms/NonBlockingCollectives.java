package org.lockstep.mpiprograms;

import java.nio.IntBuffer;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * The non-blocking collectives: iGather(v), iScatter(v), iAllGather(v), iAllToAll(v, w),
 * iReduce, iReduceScatter(Block), iScan, iExScan and their in-place forms, several in flight at
 * once and completed together.
 */
public final class NonBlockingCollectives {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int root = size - 1;
        boolean isRoot = rank == root;

        // started together, completed together
        IntBuffer gathered = MPI.newIntBuffer(2 * size);
        IntBuffer scattered = MPI.newIntBuffer(1);
        IntBuffer everyone = MPI.newIntBuffer(size);
        IntBuffer transposed = MPI.newIntBuffer(size);
        IntBuffer reduced = MPI.newIntBuffer(1);
        IntBuffer prefix = MPI.newIntBuffer(1);
        IntBuffer exclusive = MPI.newIntBuffer(1);
        exclusive.put(0, -1);
        IntBuffer toAll = MPI.newIntBuffer(size);
        IntBuffer scatterSource = MPI.newIntBuffer(size);
        for (int r = 0; r < size; r++) {
            toAll.put(r, rank * 100 + r);
            scatterSource.put(r, 500 + r);
        }
        Request[] started = {
            world.iGather(ints(rank, -rank), 2, MPI.INT, gathered, 2, MPI.INT, root),
            world.iScatter(scatterSource, 1, MPI.INT, scattered, 1, MPI.INT, root),
            world.iAllGather(ints(rank * 2), 1, MPI.INT, everyone, 1, MPI.INT),
            world.iAllToAll(toAll, 1, MPI.INT, transposed, 1, MPI.INT),
            world.iReduce(ints(rank + 1), reduced, 1, MPI.INT, MPI.SUM, root),
            world.iScan(ints(rank + 1), prefix, 1, MPI.INT, MPI.SUM),
            world.iExScan(ints(rank + 1), exclusive, 1, MPI.INT, MPI.SUM),
        };
        Request.waitAll(started);
        if (isRoot) {
            for (int r = 0; r < size; r++) {
                Check.that(gathered.get(2 * r) == r && gathered.get(2 * r + 1) == -r, "iGather block " + r);
            }
            Check.equal(size * (size + 1) / 2, reduced.get(0), "iReduce sum");
        }
        Check.equal(500 + rank, scattered.get(0), "iScatter");
        for (int r = 0; r < size; r++) {
            Check.equal(2 * r, everyone.get(r), "iAllGather block " + r);
            Check.equal(r * 100 + rank, transposed.get(r), "iAllToAll block " + r);
        }
        Check.equal((rank + 1) * (rank + 2) / 2, prefix.get(0), "iScan");
        if (rank > 0) {
            Check.equal(rank * (rank + 1) / 2, exclusive.get(0), "iExScan");
        }

        vectorForms(world, rank, size, root);
        inPlaceForms(world, rank, size, root);
        reductions(world, rank, size);
        Check.passed("non-blocking collectives");
        MPI.Finalize();
    }

    private static IntBuffer ints(int... values) {
        IntBuffer b = MPI.newIntBuffer(values.length);
        b.put(0, values);
        return b;
    }

    /** Rank r contributes r + 1 ints; blocks in reverse rank order at the root. */
    private static void vectorForms(Intracomm world, int rank, int size, int root) throws MPIException {
        Layouts.Blocks blocks = Layouts.reverseRankOrder(size);
        int[] counts = blocks.counts();
        int[] displs = blocks.displs();
        int total = blocks.total();
        IntBuffer mine = MPI.newIntBuffer(rank + 1);
        for (int k = 0; k <= rank; k++) {
            mine.put(k, rank);
        }
        IntBuffer packed = MPI.newIntBuffer(total);
        world.iGatherv(mine, rank + 1, MPI.INT, packed, counts, displs, MPI.INT, root).waitFor();
        IntBuffer all = MPI.newIntBuffer(total);
        world.iAllGatherv(mine, rank + 1, MPI.INT, all, counts, displs, MPI.INT).waitFor();
        for (int r = 0; r < size; r++) {
            for (int k = 0; k < counts[r]; k++) {
                Check.equal(r, all.get(displs[r] + k), "iAllGatherv block " + r);
                if (rank == root) {
                    Check.equal(r, packed.get(displs[r] + k), "iGatherv block " + r);
                }
            }
        }
        IntBuffer back = MPI.newIntBuffer(rank + 1);
        world.iScatterv(all, counts, displs, MPI.INT, back, rank + 1, MPI.INT, root).waitFor();
        for (int k = 0; k <= rank; k++) {
            Check.equal(rank, back.get(k), "iScatterv");
        }

        // alltoallv: rank r sends k + 1 ints to rank k, each the value r
        Layouts.Blocks sends = Layouts.growingSends(size);
        Layouts.Blocks receives = Layouts.growingReceives(rank, size);
        IntBuffer out = MPI.newIntBuffer(sends.total());
        for (int i = 0; i < sends.total(); i++) {
            out.put(i, rank);
        }
        IntBuffer in = MPI.newIntBuffer(receives.total());
        world.iAllToAllv(out, sends.counts(), sends.displs(), MPI.INT, in, receives.counts(), receives.displs(), MPI.INT).waitFor();
        for (int k = 0; k < size; k++) {
            for (int j = 0; j < rank + 1; j++) {
                Check.equal(k, in.get(receives.displs()[k] + j), "iAllToAllv block from " + k);
            }
        }
        // alltoallw: the same exchange with byte displacements and a datatype per peer
        int[] sendBytes = new int[size];
        int[] recvBytes = new int[size];
        mpi.Datatype[] types = new mpi.Datatype[size];
        for (int k = 0; k < size; k++) {
            sendBytes[k] = 4 * sends.displs()[k];
            recvBytes[k] = 4 * receives.displs()[k];
            types[k] = MPI.INT;
        }
        IntBuffer inW = MPI.newIntBuffer(receives.total());
        world.iAllToAllw(out, sends.counts(), sendBytes, types, inW, receives.counts(), recvBytes, types).waitFor();
        for (int i = 0; i < receives.total(); i++) {
            Check.equal(in.get(i), inW.get(i), "iAllToAllw element " + i);
        }
    }

    private static void inPlaceForms(Intracomm world, int rank, int size, int root) throws MPIException {
        IntBuffer buf = MPI.newIntBuffer(size);
        buf.put(rank == root ? root : 0, rank * 3);
        world.iGather(buf, 1, MPI.INT, root).waitFor();
        if (rank == root) {
            for (int r = 0; r < size; r++) {
                Check.equal(r * 3, buf.get(r), "in-place iGather block " + r);
            }
        }
        IntBuffer gathered = MPI.newIntBuffer(size);
        gathered.put(rank, rank + 7);
        world.iAllGather(gathered, 1, MPI.INT).waitFor();
        for (int r = 0; r < size; r++) {
            Check.equal(r + 7, gathered.get(r), "in-place iAllGather block " + r);
        }
        IntBuffer sum = ints(rank);
        world.iAllReduce(sum, 1, MPI.INT, MPI.SUM).waitFor();
        Check.equal(size * (size - 1) / 2, sum.get(0), "in-place iAllReduce");
        IntBuffer reduced = ints(rank + 2);
        world.iReduce(reduced, 1, MPI.INT, MPI.MAX, root).waitFor();
        if (rank == root) {
            Check.equal(size + 1, reduced.get(0), "in-place iReduce");
        }
        IntBuffer scan = ints(1);
        world.iScan(scan, 1, MPI.INT, MPI.SUM).waitFor();
        Check.equal(rank + 1, scan.get(0), "in-place iScan");
    }

    private static void reductions(Intracomm world, int rank, int size) throws MPIException {
        IntBuffer contributions = MPI.newIntBuffer(2 * size);
        for (int i = 0; i < 2 * size; i++) {
            contributions.put(i, i + rank);
        }
        IntBuffer block = MPI.newIntBuffer(2);
        world.iReduceScatterBlock(contributions, block, 2, MPI.INT, MPI.SUM).waitFor();
        int ranks = size * (size - 1) / 2;
        Check.equal(size * 2 * rank + ranks, block.get(0), "iReduceScatterBlock first");
        Check.equal(size * (2 * rank + 1) + ranks, block.get(1), "iReduceScatterBlock second");
        int[] counts = new int[size];
        java.util.Arrays.fill(counts, 2);
        IntBuffer scattered = MPI.newIntBuffer(2);
        Request r = world.iReduceScatter(contributions, scattered, counts, MPI.INT, MPI.SUM);
        while (!r.test()) {
            Thread.onSpinWait();
        }
        Check.equal(block.get(0), scattered.get(0), "iReduceScatter, completed by test");
        Check.equal(block.get(1), scattered.get(1), "iReduceScatter second");
    }
}
