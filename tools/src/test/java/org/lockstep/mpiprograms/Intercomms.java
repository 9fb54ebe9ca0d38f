package org.lockstep.mpiprograms;

import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * Intercommunicators between the even and the odd world ranks: createIntercomm, sizes and the
 * remote group, point-to-point to remote ranks, barrier, bcast, gather, scatter, allGather,
 * allToAll, their vector forms, reduce and allReduce with MPI.ROOT and MPI.PROC_NULL roots, the non-blocking
 * iBcast, iGather, iAllGather, iReduce and iAllReduce, dup, merge and free.
 */
public final class Intercomms {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        boolean even = rank % 2 == 0;
        Intracomm local = world.split(rank % 2, rank);
        int me = local.getRank();
        Intercomm inter = world.createIntercomm(local, 0, even ? 1 : 0, 99);
        int evens = (size + 1) / 2;
        int remoteSize = even ? size - evens : evens;

        Check.that(inter.isInter(), "an intercommunicator says so");
        Check.equal(local.getSize(), inter.getSize(), "size is the local group's");
        Check.equal(me, inter.getRank(), "rank is the local rank");
        Check.equal(remoteSize, inter.getRemoteSize(), "remote size");
        Group remote = inter.getRemoteGroup();
        int[] remoteWorld = Group.translateRanks(remote, new int[] {0}, world.getGroup());
        Check.equal(even ? 1 : 0, remoteWorld[0], "the remote group's rank 0");

        // point-to-point: local rank i and remote rank i swap their world ranks
        int[] got = new int[1];
        if (me < remoteSize) {
            Status s = inter.sendRecv(new int[] {rank}, 1, MPI.INT, me, 1, got, 1, MPI.INT, me, 1);
            Check.equal(even ? rank + 1 : rank - 1, got[0], "the partner's world rank");
            Check.equal(me, s.getSource(), "the status names the remote rank");
        }
        inter.barrier();

        // rooted collectives: the evens' rank 0 is the root, the odds take part
        int root = even ? (me == 0 ? MPI.ROOT : MPI.PROC_NULL) : 0;
        int[] value = {even && me == 0 ? 77 : -1};
        inter.bcast(value, 1, MPI.INT, root);
        Check.equal(even ? (me == 0 ? 77 : -1) : 77, value[0], "bcast from the other group's root");
        int[] gathered = new int[remoteSize];
        inter.gather(new int[] {rank}, 1, MPI.INT, gathered, 1, MPI.INT, root);
        if (root == MPI.ROOT) {
            for (int i = 0; i < remoteSize; i++) {
                Check.equal(2 * i + 1, gathered[i], "gather at the root, block " + i);
            }
        }
        int[] source = new int[remoteSize];
        for (int i = 0; i < remoteSize; i++) {
            source[i] = 500 + i;
        }
        int[] piece = {-1};
        inter.scatter(source, 1, MPI.INT, piece, 1, MPI.INT, root);
        Check.equal(even ? -1 : 500 + me, piece[0], "scatter to the other group");
        int[] sum = {-1};
        inter.reduce(new int[] {rank}, sum, 1, MPI.INT, MPI.SUM, root);
        if (root == MPI.ROOT) {
            Check.equal(remoteSum(size, false), sum[0], "reduce of the odd ranks at the even root");
        }

        // all-to-all collectives see the remote group's data
        int[] all = new int[remoteSize];
        inter.allGather(new int[] {rank}, 1, MPI.INT, all, 1, MPI.INT);
        for (int i = 0; i < remoteSize; i++) {
            Check.equal(even ? 2 * i + 1 : 2 * i, all[i], "allGather block " + i);
        }
        int[] toEach = new int[remoteSize];
        for (int i = 0; i < remoteSize; i++) {
            toEach[i] = rank * 100 + i;
        }
        int[] fromEach = new int[remoteSize];
        inter.allToAll(toEach, 1, MPI.INT, fromEach, 1, MPI.INT);
        for (int i = 0; i < remoteSize; i++) {
            int sender = even ? 2 * i + 1 : 2 * i;
            Check.equal(sender * 100 + me, fromEach[i], "allToAll block " + i);
        }
        vectorForms(inter, even, me, remoteSize, root);
        int[] total = new int[1];
        inter.allReduce(new int[] {rank}, total, 1, MPI.INT, MPI.SUM);
        Check.equal(remoteSum(size, !even), total[0], "allReduce of the remote group");

        // dup keeps the groups on a new context; merge puts the evens (high = false) first
        mpi.Info hints = new mpi.Info();
        hints.set("mpi_assert_allow_overtaking", "true");
        inter.setInfo(hints);
        Intercomm copy = inter.dup();
        Check.equal(remoteSize, copy.getRemoteSize(), "a duplicate's remote size");
        Check.that("true".equals(copy.getInfo().get("mpi_assert_allow_overtaking")), "an intercommunicator's dup passes its hints on");
        Intracomm merged = inter.merge(!even);
        Check.equal(size, merged.getSize(), "merged size");
        Check.equal(even ? me : evens + me, merged.getRank(), "merged rank");
        int[] mergedSum = new int[1];
        merged.allReduce(new int[] {rank}, mergedSum, 1, MPI.INT, MPI.SUM);
        Check.equal(size * (size - 1) / 2, mergedSum[0], "a collective on the merged communicator");
        nonBlocking(inter, even, me, remoteSize, size, root);
        inter.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_UNSUPPORTED_OPERATION, "Intercomm.iDup", inter::iDup);
        merged.free();
        copy.free();
        inter.free();
        local.free();
        Check.passed("intercommunicators");
        MPI.Finalize();
    }

    /** iBcast, iGather, iAllGather, iReduce and iAllReduce across the groups, the evens' rank 0 the root of the rooted ones. */
    private static void nonBlocking(Intercomm inter, boolean even, int me, int remoteSize, int size, int root) throws MPIException {
        int rank = MPI.COMM_WORLD.getRank();
        java.nio.IntBuffer value = MPI.newIntBuffer(1).put(0, even && me == 0 ? 88 : -1);
        inter.iBcast(value, 1, MPI.INT, root).waitFor();
        Check.equal(even ? (me == 0 ? 88 : -1) : 88, value.get(0), "iBcast from the other group's root");
        java.nio.IntBuffer mine = MPI.newIntBuffer(1).put(0, rank);
        java.nio.IntBuffer gathered = MPI.newIntBuffer(remoteSize);
        inter.iGather(mine, 1, MPI.INT, gathered, 1, MPI.INT, root).waitFor();
        if (root == MPI.ROOT) {
            for (int i = 0; i < remoteSize; i++) {
                Check.equal(2 * i + 1, gathered.get(i), "iGather at the root, block " + i);
            }
        }
        java.nio.IntBuffer all = MPI.newIntBuffer(remoteSize);
        inter.iAllGather(mine, 1, MPI.INT, all, 1, MPI.INT).waitFor();
        for (int i = 0; i < remoteSize; i++) {
            Check.equal(even ? 2 * i + 1 : 2 * i, all.get(i), "iAllGather block " + i);
        }
        java.nio.IntBuffer sum = MPI.newIntBuffer(1).put(0, -1);
        inter.iReduce(mine, sum, 1, MPI.INT, MPI.SUM, root).waitFor();
        if (root == MPI.ROOT) {
            Check.equal(remoteSum(size, false), sum.get(0), "iReduce of the odd ranks at the even root");
        }
        java.nio.IntBuffer total = MPI.newIntBuffer(1);
        inter.iAllReduce(mine, total, 1, MPI.INT, MPI.SUM).waitFor();
        Check.equal(remoteSum(size, !even), total.get(0), "iAllReduce of the remote group");
    }

    /**
     * scatterv, gatherv, allGatherv and allToAllv across the groups: remote rank j's block is j + 1
     * elements long; the evens' rank 0 is the root of the rooted ones.
     */
    private static void vectorForms(Intercomm inter, boolean even, int me, int remoteSize, int root) throws MPIException {
        Layouts.Blocks blocks = Layouts.reverseRankOrder(remoteSize);
        int[] scattered = new int[blocks.total()];
        for (int j = 0; j < remoteSize; j++) {
            java.util.Arrays.fill(scattered, blocks.displs()[j], blocks.displs()[j] + j + 1, 1000 + j);
        }
        int[] mine = new int[me + 1];
        inter.scatterv(scattered, blocks.counts(), blocks.displs(), MPI.INT, mine, me + 1, MPI.INT, root);
        if (!even) {
            Check.equal(copies(1000 + me, me + 1), mine, "scatterv's block for remote rank " + me);
        }
        int[] gathered = new int[blocks.total()];
        inter.gatherv(copies(2000 + me, me + 1), me + 1, MPI.INT, gathered, blocks.counts(), blocks.displs(), MPI.INT, root);
        int[] everyone = new int[blocks.total()];
        inter.allGatherv(copies(3000 + me, me + 1), me + 1, MPI.INT, everyone, blocks.counts(), blocks.displs(), MPI.INT);
        for (int j = 0; j < remoteSize; j++) {
            int from = blocks.displs()[j];
            if (root == MPI.ROOT) {
                Check.equal(copies(2000 + j, j + 1), java.util.Arrays.copyOfRange(gathered, from, from + j + 1), "gatherv block " + j);
            }
            Check.equal(copies(3000 + j, j + 1), java.util.Arrays.copyOfRange(everyone, from, from + j + 1), "allGatherv block " + j);
        }
        Layouts.Blocks sends = Layouts.growingSends(remoteSize);
        Layouts.Blocks receives = Layouts.growingReceives(me, remoteSize);
        int[] out = new int[sends.total()];
        for (int j = 0; j < remoteSize; j++) {
            java.util.Arrays.fill(out, sends.displs()[j], sends.displs()[j] + j + 1, 100 * me + j);
        }
        int[] in = new int[receives.total()];
        inter.allToAllv(out, sends.counts(), sends.displs(), MPI.INT, in, receives.counts(), receives.displs(), MPI.INT);
        for (int j = 0; j < remoteSize; j++) {
            int from = receives.displs()[j];
            Check.equal(copies(100 * j + me, me + 1), java.util.Arrays.copyOfRange(in, from, from + me + 1), "allToAllv block " + j);
        }
    }

    private static int[] copies(int value, int n) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, value);
        return a;
    }

    /** The sum of the odd (or even) world ranks below {@code size}. */
    private static int remoteSum(int size, boolean evens) {
        int s = 0;
        for (int r = evens ? 0 : 1; r < size; r += 2) {
            s += r;
        }
        return s;
    }
}
