package org.lockstep.mpiprograms;

import java.nio.DoubleBuffer;
import java.nio.IntBuffer;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/** Every blocking collective, their in-place forms, mixed send and receive datatypes, and the non-blocking barrier, bcast and allreduce. */
public final class Collectives {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();

        world.barrier();
        for (int root = 0; root < size; root++) {
            int[] value = {rank == root ? 1000 + root : -1, 0};
            world.bcast(value, 1, MPI.INT, root);
            Check.equal(1000 + root, value[0], "bcast from " + root);

            int[] all = new int[2 * size];
            world.gather(new int[] {rank, -rank}, 2, MPI.INT, all, 2, MPI.INT, root);
            if (rank == root) {
                for (int r = 0; r < size; r++) {
                    Check.that(all[2 * r] == r && all[2 * r + 1] == -r, "gather block " + r);
                }
            }
            int[] inPlace = new int[size];
            inPlace[rank == root ? root : 0] = rank * 3; // the root's block is in place; the others send from their buffer's start
            world.gather(inPlace, 1, MPI.INT, root);
            if (rank == root) {
                for (int r = 0; r < size; r++) {
                    Check.equal(r * 3, inPlace[r], "in-place gather block " + r);
                }
            }

            int[] source = new int[size];
            for (int r = 0; r < size; r++) {
                source[r] = root * 100 + r;
            }
            int[] mine = new int[1];
            world.scatter(source, 1, MPI.INT, mine, 1, MPI.INT, root);
            Check.equal(root * 100 + rank, mine[0], "scatter");

            // gatherv / scatterv: rank r contributes r + 1 values, packed at the root in reverse rank order
            Layouts.Blocks blocks = Layouts.reverseRankOrder(size);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            int total = blocks.total();
            int[] contribution = new int[rank + 1];
            java.util.Arrays.fill(contribution, rank);
            int[] packed = new int[total];
            world.gatherv(contribution, rank + 1, MPI.INT, packed, counts, displs, MPI.INT, root);
            if (rank == root) {
                for (int r = 0; r < size; r++) {
                    for (int k = 0; k < counts[r]; k++) {
                        Check.equal(r, packed[displs[r] + k], "gatherv block " + r);
                    }
                }
            }
            int[] back = new int[rank + 1];
            world.scatterv(packed, counts, displs, MPI.INT, back, rank + 1, MPI.INT, root);
            if (rank == root) {
                for (int v : back) {
                    Check.equal(rank, v, "scatterv block");
                }
            }

            double[] sum = new double[1];
            world.reduce(new double[] {rank + 1}, sum, 1, MPI.DOUBLE, MPI.SUM, root);
            if (rank == root) {
                Check.equal(size * (size + 1) / 2.0, sum[0], "reduce sum at " + root);
            }
            long[] product = {rank + 1};
            world.reduce(product, 1, MPI.LONG, MPI.PROD, root);
            if (rank == root) {
                long expected = 1;
                for (int r = 1; r <= size; r++) {
                    expected *= r;
                }
                Check.equal(expected, product[0], "in-place reduce product");
            }
        }

        // allgather: 4 ints sent, received as 16 bytes a rank (type signatures of equal length)
        byte[] gathered = new byte[16 * size];
        world.allGather(new int[] {rank, rank, rank, rank}, 4, MPI.INT, gathered, 16, MPI.BYTE);
        java.nio.ByteBuffer view = java.nio.ByteBuffer.wrap(gathered).order(java.nio.ByteOrder.nativeOrder());
        for (int r = 0; r < size; r++) {
            Check.equal(r, view.getInt(16 * r + 12), "allgather of mixed types, block " + r);
        }
        int[] inPlaceAll = new int[size];
        inPlaceAll[rank] = rank + 7;
        world.allGather(inPlaceAll, 1, MPI.INT);
        for (int r = 0; r < size; r++) {
            Check.equal(r + 7, inPlaceAll[r], "in-place allgather");
        }
        int[] counts = new int[size];
        int[] displs = new int[size];
        for (int r = 0; r < size; r++) {
            counts[r] = 1;
            displs[r] = size - 1 - r;
        }
        int[] reversed = new int[size];
        world.allGatherv(new int[] {rank}, 1, MPI.INT, reversed, counts, displs, MPI.INT);
        for (int r = 0; r < size; r++) {
            Check.equal(size - 1 - r, reversed[r], "allgatherv reversed");
        }

        int[] toEach = new int[size];
        for (int r = 0; r < size; r++) {
            toEach[r] = rank * size + r;
        }
        int[] fromEach = new int[size];
        world.allToAll(toEach, 1, MPI.INT, fromEach, 1, MPI.INT);
        for (int r = 0; r < size; r++) {
            Check.equal(r * size + rank, fromEach[r], "alltoall");
        }
        Layouts.Blocks sends = Layouts.growingSends(size);
        Layouts.Blocks receives = Layouts.growingReceives(rank, size);
        double[] sendV = new double[sends.total()];
        for (int r = 0; r < size; r++) {
            for (int k = 0; k < sends.counts()[r]; k++) {
                sendV[sends.displs()[r] + k] = rank * 10 + k;
            }
        }
        double[] recvV = new double[receives.total()];
        world.allToAllv(sendV, sends.counts(), sends.displs(), MPI.DOUBLE, recvV, receives.counts(), receives.displs(), MPI.DOUBLE);
        for (int r = 0; r < size; r++) {
            for (int k = 0; k <= rank; k++) {
                Check.equal(r * 10 + k, recvV[receives.displs()[r] + k], "alltoallv from " + r);
            }
        }

        int[] max = new int[2];
        world.allReduce(new int[] {rank, -rank}, max, 2, MPI.INT, MPI.MAX);
        Check.that(max[0] == size - 1 && max[1] == 0, "allreduce max");
        int[] bits = {1 << rank};
        world.allReduce(bits, 1, MPI.INT, MPI.BOR);
        Check.equal((1 << size) - 1, bits[0], "in-place allreduce bor");
        boolean[] any = {rank == size - 1};
        world.allReduce(any, 1, MPI.BOOLEAN, MPI.LOR);
        Check.that(any[0], "allreduce lor on booleans");

        int[] blocks = new int[size * 2];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = i;
        }
        int[] myBlock = new int[2];
        world.reduceScatterBlock(blocks, myBlock, 2, MPI.INT, MPI.SUM);
        Check.that(myBlock[0] == 2 * rank * size && myBlock[1] == (2 * rank + 1) * size, "reduceScatterBlock");
        int[] uneven = new int[size];
        int need = 0;
        for (int r = 0; r < size; r++) {
            uneven[r] = r % 2 + 1;
            need += uneven[r];
        }
        int[] contributions = new int[need];
        java.util.Arrays.fill(contributions, rank + 1);
        int[] part = new int[uneven[rank]];
        world.reduceScatter(contributions, part, uneven, MPI.INT, MPI.SUM);
        for (int v : part) {
            Check.equal(size * (size + 1) / 2, v, "reduceScatter");
        }

        int[] prefix = new int[1];
        world.scan(new int[] {rank + 1}, prefix, 1, MPI.INT, MPI.SUM);
        Check.equal((rank + 1) * (rank + 2) / 2, prefix[0], "scan");
        int[] exclusive = {-5};
        world.exScan(new int[] {rank + 1}, exclusive, 1, MPI.INT, MPI.SUM);
        if (rank > 0) {
            Check.equal(rank * (rank + 1) / 2, exclusive[0], "exscan");
        }
        int[] inPlaceScan = {2};
        world.scan(inPlaceScan, 1, MPI.INT, MPI.PROD);
        Check.equal(1 << (rank + 1), inPlaceScan[0], "in-place scan");

        // the non-blocking ones Lockstep's API has
        Request barrier = world.iBarrier();
        barrier.waitFor();
        IntBuffer shared = MPI.newIntBuffer(3);
        if (rank == size - 1) {
            shared.put(0, 4).put(1, 5).put(2, 6);
        }
        world.iBcast(shared, 3, MPI.INT, size - 1).waitFor();
        Check.that(shared.get(0) == 4 && shared.get(2) == 6, "ibcast");
        DoubleBuffer mineD = MPI.newDoubleBuffer(1);
        DoubleBuffer totalD = MPI.newDoubleBuffer(1);
        mineD.put(0, 0.25);
        Request reduction = world.iAllReduce(mineD, totalD, 1, MPI.DOUBLE, MPI.SUM);
        reduction.waitFor();
        Check.equal(0.25 * size, totalD.get(0), "iallreduce");

        Check.passed("collectives");
        MPI.Finalize();
    }
}
