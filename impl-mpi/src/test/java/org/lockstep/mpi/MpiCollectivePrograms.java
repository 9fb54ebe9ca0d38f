package org.lockstep.mpi;

import static org.lockstep.mpi.MpiPrograms.check;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/** Every collective of the API, run by {@link MpiPrograms} under mpirun, checked against values each rank computes. */
final class MpiCollectivePrograms {
    private MpiCollectivePrograms() {
    }

    static void collectives(Communicator world) {
        int me = world.rank();
        int n = world.size();
        MemorySegment in = MemorySegment.ofArray(new int[] {me + 1, 10 * (me + 1)});
        world.barrier();
        // bcast from every root, heap and native
        for (int root = 0; root < n; root++) {
            long[] b = me == root ? new long[] {root, root * 2L, -root} : new long[3];
            world.bcast(MemorySegment.ofArray(b), 3, Datatype.LONG, root);
            check(Arrays.equals(b, new long[] {root, root * 2L, -root}), "bcast from " + root);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment big = arena.allocate(1 << 20);
            if (me == 0) {
                big.fill((byte) 5);
            }
            world.bcast(big, 1 << 20, Datatype.BYTE, 0);
            check(big.get(ValueLayout.JAVA_BYTE, (1 << 20) - 1) == 5, "native 1 MiB bcast");
        }
        // gather / scatter, plain and in place
        int[] all = new int[2 * n];
        world.gather(in, 2, Datatype.INT, MemorySegment.ofArray(all), 0);
        if (me == 0) {
            for (int r = 0; r < n; r++) {
                check(all[2 * r] == r + 1 && all[2 * r + 1] == 10 * (r + 1), "gather block " + r);
            }
        }
        int[] inPlace = new int[2 * n];
        inPlace[2 * me] = 7;
        world.gather(me == 0 ? Communicator.IN_PLACE : MemorySegment.ofArray(new int[] {me, me}), 2, Datatype.INT,
                MemorySegment.ofArray(inPlace), 0);
        if (me == 0) {
            check(inPlace[0] == 7 && (n < 2 || inPlace[2] == 1), "gather in place " + Arrays.toString(inPlace));
        }
        int[] source = new int[n];
        for (int r = 0; r < n; r++) {
            source[r] = 100 + r;
        }
        int[] mine = new int[1];
        world.scatter(MemorySegment.ofArray(source), 1, Datatype.INT, MemorySegment.ofArray(mine), n - 1);
        check(mine[0] == 100 + me, "scatter");
        // gatherv / scatterv: rank r contributes r+1 elements, placed in reverse rank order
        long[] counts = new long[n];
        long[] displs = new long[n];
        long offset = 0;
        for (int r = n - 1; r >= 0; r--) {
            counts[r] = r + 1;
            displs[r] = offset;
            offset += r + 1;
        }
        double[] contribution = new double[me + 1];
        Arrays.fill(contribution, me + 0.5);
        double[] gathered = new double[(int) offset];
        world.gatherv(MemorySegment.ofArray(contribution), me + 1, Datatype.DOUBLE, MemorySegment.ofArray(gathered), counts, displs, 0);
        world.allgatherv(MemorySegment.ofArray(contribution), me + 1, Datatype.DOUBLE, MemorySegment.ofArray(gathered), counts, displs);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < r + 1; i++) {
                check(gathered[(int) displs[r] + i] == r + 0.5, "allgatherv element " + r + "." + i);
            }
        }
        double[] scattered = new double[me + 1];
        world.scatterv(MemorySegment.ofArray(gathered), counts, displs, Datatype.DOUBLE, MemorySegment.ofArray(scattered), me + 1, 0);
        check(scattered[me] == me + 0.5, "scatterv");
        // allgather, alltoall(v)
        int[] every = new int[2 * n];
        world.allgather(in, 2, Datatype.INT, MemorySegment.ofArray(every));
        check(every[2 * (n - 1)] == n, "allgather");
        int[] blocks = new int[n];
        for (int r = 0; r < n; r++) {
            blocks[r] = me * 1000 + r;
        }
        int[] swapped = new int[n];
        world.alltoall(MemorySegment.ofArray(blocks), 1, Datatype.INT, MemorySegment.ofArray(swapped));
        for (int r = 0; r < n; r++) {
            check(swapped[r] == r * 1000 + me, "alltoall block " + r);
        }
        long[] ones = new long[n];
        long[] idx = new long[n];
        for (int r = 0; r < n; r++) {
            ones[r] = 1;
            idx[r] = r;
        }
        int[] swappedV = new int[n];
        world.alltoallv(MemorySegment.ofArray(blocks), ones, idx, Datatype.INT, MemorySegment.ofArray(swappedV), ones, idx);
        check(Arrays.equals(swapped, swappedV), "alltoallv");
        // reductions: predefined, in place, every rank's result
        int[] sum = new int[2];
        world.allreduce(in, MemorySegment.ofArray(sum), 2, Datatype.INT, Op.SUM);
        int triangle = n * (n + 1) / 2;
        check(sum[0] == triangle && sum[1] == 10 * triangle, "allreduce sum");
        int[] max = {me, -me};
        world.allreduce(Communicator.IN_PLACE, MemorySegment.ofArray(max), 2, Datatype.INT, Op.MAX);
        check(max[0] == n - 1 && max[1] == 0, "allreduce max in place");
        long[] product = new long[1];
        world.reduce(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(product), 1, Datatype.LONG, Op.PROD, 0);
        if (me == 0) {
            long f = 1;
            for (int r = 1; r <= n; r++) {
                f *= r;
            }
            check(product[0] == f, "reduce prod");
        }
        byte[] flags = {(byte) (me == 0 ? 1 : 0)};
        byte[] anyFlag = new byte[1];
        world.allreduce(MemorySegment.ofArray(flags), MemorySegment.ofArray(anyFlag), 1, Datatype.BOOLEAN, Op.LOR);
        check(anyFlag[0] == 1, "boolean lor");
        byte[] bits = {(byte) (1 << (me % 8))};
        world.allreduce(Communicator.IN_PLACE, MemorySegment.ofArray(bits), 1, Datatype.BYTE, Op.BOR);
        check((bits[0] & 1) == 1, "byte bor");
        // MINLOC on the API's packed pairs (a derived type and an upcall) and on MPI's own
        MemorySegment pair = MemorySegment.ofArray(new byte[12]);
        pair.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, me == n - 1 ? -1.0 : me);
        pair.set(ValueLayout.JAVA_INT_UNALIGNED, 8, me);
        MemorySegment least = MemorySegment.ofArray(new byte[12]);
        world.allreduce(pair, least, 1, Datatype.DOUBLE_INT, Op.MINLOC);
        check(least.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0) == -1.0 && least.get(ValueLayout.JAVA_INT_UNALIGNED, 8) == n - 1,
                "minloc double_int");
        int[] intPair = {5, me};
        int[] maxloc = new int[2];
        world.allreduce(MemorySegment.ofArray(intPair), MemorySegment.ofArray(maxloc), 1, Datatype.INT_INT, Op.MAXLOC);
        check(maxloc[0] == 5 && maxloc[1] == 0, "maxloc ties go to the lowest index");
        // A non-commutative user operation sees rank order: each rank's element (m, c) is the map
        // x -> m*x + c, and in o inout is "first in, then inout", so the result is the maps composed in rank order.
        Op compose = Op.create((left, right, count, type) -> {
            for (long e = 0; e < count; e++) {
                long at = e * 8;
                int lm = left.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                int lc = left.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
                int rm = right.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                int rcoef = right.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
                right.set(ValueLayout.JAVA_INT_UNALIGNED, at, lm * rm);
                right.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, rm * lc + rcoef);
            }
        }, false);
        int[] map = {2, me + 1};
        int[] composed = new int[2];
        world.allreduce(MemorySegment.ofArray(map), MemorySegment.ofArray(composed), 1, Datatype.INT_INT, compose);
        int em = 1;
        int ec = 0;
        for (int r = 0; r < n; r++) {
            ec = 2 * ec + r + 1;
            em *= 2;
        }
        check(composed[0] == em && composed[1] == ec, "non-commutative allreduce in rank order: " + Arrays.toString(composed)
                + " != [" + em + ", " + ec + "]");
        int[] scanned = new int[2];
        world.scan(MemorySegment.ofArray(map), MemorySegment.ofArray(scanned), 1, Datatype.INT_INT, compose);
        int sc = 0;
        for (int r = 0; r <= me; r++) {
            sc = 2 * sc + r + 1;
        }
        check(scanned[1] == sc, "non-commutative scan in rank order");
        // a user function that throws: the call fails on that rank with the function's exception
        Op failing = Op.create((l, r, c, t) -> {
            throw new IllegalStateException("user function failed on purpose");
        }, true);
        if (n > 1) {
            // The root always folds; which other ranks fold depends on the library's algorithm.
            boolean failed = false;
            try {
                world.reduce(MemorySegment.ofArray(new int[1]), MemorySegment.ofArray(new int[1]), 1, Datatype.INT, failing, 0);
            } catch (IllegalStateException expectedFailure) {
                failed = true;
            }
            check(failed || me != 0, "a throwing user function went unnoticed at the root");
        }
        // reduce_scatter(_block), scan, exscan
        int[] contributions = new int[n];
        Arrays.fill(contributions, me + 1);
        int[] block = new int[1];
        world.reduceScatterBlock(MemorySegment.ofArray(contributions), MemorySegment.ofArray(block), 1, Datatype.INT, Op.SUM);
        check(block[0] == triangle, "reduce_scatter_block");
        long[] rc = new long[n];
        Arrays.fill(rc, 1);
        world.reduceScatter(MemorySegment.ofArray(contributions), MemorySegment.ofArray(block), rc, Datatype.INT, Op.SUM);
        check(block[0] == triangle, "reduce_scatter");
        int[] prefix = new int[1];
        world.scan(MemorySegment.ofArray(new int[] {me + 1}), MemorySegment.ofArray(prefix), 1, Datatype.INT, Op.SUM);
        check(prefix[0] == (me + 1) * (me + 2) / 2, "scan");
        int[] exclusive = {-42};
        world.exscan(MemorySegment.ofArray(new int[] {me + 1}), MemorySegment.ofArray(exclusive), 1, Datatype.INT, Op.SUM);
        check(me == 0 ? exclusive[0] == -42 : exclusive[0] == me * (me + 1) / 2, "exscan " + exclusive[0]);
        // non-blocking collectives from heap arrays
        Request barrier = world.ibarrier();
        long[] value = me == 0 ? new long[] {99} : new long[1];
        Request bcast = world.ibcast(MemorySegment.ofArray(value), 1, Datatype.LONG, 0);
        double[] total = new double[1];
        Request allreduce = world.iallreduce(MemorySegment.ofArray(new double[] {0.5}), MemorySegment.ofArray(total), 1,
                Datatype.DOUBLE, Op.SUM);
        Request.waitAll(barrier, bcast, allreduce);
        check(value[0] == 99 && total[0] == 0.5 * n, "non-blocking collectives: " + value[0] + ", " + total[0]);
        moreNonBlockingCollectives(world);
        try {
            world.bcast(MemorySegment.ofArray(new int[1]), 1, Datatype.INT, -1);
            throw new AssertionError("bad root accepted");
        } catch (LockstepException e) {
            check(e.errorClass() == org.lockstep.api.ErrorClass.ROOT, "bad root error class");
        }
        world.barrier();
    }

    /**
     * More non-blocking collectives from heap arrays, all in flight at once: the library's own on
     * mpi and hybrid ({@link MpiNonBlockingCollectivePrograms} has every one).
     */
    private static void moreNonBlockingCollectives(Communicator world) {
        int me = world.rank();
        int n = world.size();
        int[] gathered = new int[n];
        Request gather = world.igather(MemorySegment.ofArray(new int[] {me + 5}), 1, Datatype.INT, MemorySegment.ofArray(gathered), 0);
        int[] everyone = new int[n];
        Request allgather = world.iallgather(MemorySegment.ofArray(new int[] {3 * me}), 1, Datatype.INT, MemorySegment.ofArray(everyone));
        int[] toEach = new int[n];
        for (int r = 0; r < n; r++) {
            toEach[r] = 100 * me + r;
        }
        int[] fromEach = new int[n];
        Request alltoall = world.ialltoall(MemorySegment.ofArray(toEach), 1, Datatype.INT, MemorySegment.ofArray(fromEach));
        long[] sum = new long[1];
        Request reduce = world.ireduce(MemorySegment.ofArray(new long[] {me + 1}), MemorySegment.ofArray(sum), 1, Datatype.LONG,
                Op.SUM, n - 1);
        int[] prefix = new int[1];
        Request scan = world.iscan(MemorySegment.ofArray(new int[] {me + 1}), MemorySegment.ofArray(prefix), 1, Datatype.INT, Op.SUM);
        Request.waitAll(gather, allgather, alltoall, reduce, scan);
        for (int r = 0; r < n; r++) {
            check(me != 0 || gathered[r] == r + 5, "igather block " + r + ": " + Arrays.toString(gathered));
            check(everyone[r] == 3 * r, "iallgather block " + r + ": " + Arrays.toString(everyone));
            check(fromEach[r] == 100 * r + me, "ialltoall block " + r + ": " + Arrays.toString(fromEach));
        }
        check(me != n - 1 || sum[0] == (long) n * (n + 1) / 2, "ireduce " + sum[0]);
        check(prefix[0] == (me + 1) * (me + 2) / 2, "iscan " + prefix[0]);
    }
}
