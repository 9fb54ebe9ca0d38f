package org.lockstep.mpi;

import static org.lockstep.mpi.MpiPrograms.check;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * Every non-blocking collective of the API that the {@code mpi} provider starts as the library's own
 * ({@code MPI_Igatherv} ... {@code MPI_Iexscan}), all in flight at once and completed in reverse
 * order: uneven counts and reversed displacements, every root, in place where MPI allows, heap
 * arrays (staged for the request's life) and native memory, and a non-commutative user operation
 * (the left projection, whose fold in rank order is rank 0's element).
 */
final class MpiNonBlockingCollectivePrograms {
    private MpiNonBlockingCollectivePrograms() {
    }

    static void nonBlockingCollectives(Communicator world) {
        for (int round = 0; round < 3; round++) {
            allInFlight(world, round);
        }
        world.barrier();
    }

    private static void allInFlight(Communicator world, int round) {
        int me = world.rank();
        int n = world.size();
        int root = (round + 1) % n;
        Op first = Op.create((in, inout, count, type) -> MemorySegment.copy(in, 0, inout, 0, type.byteLength(count)), false);
        List<Request> started = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            // igather, in place at the root
            int[] gathered = new int[n];
            gathered[me] = 7 * me + round;
            started.add(world.igather(me == root ? Communicator.IN_PLACE : MemorySegment.ofArray(new int[] {7 * me + round}), 1,
                    Datatype.INT, MemorySegment.ofArray(gathered), root));
            // igatherv: rank r sends r+1 ints, placed in reversed order of ranks
            long[] counts = new long[n];
            long[] reversed = new long[n];
            long total = 0;
            for (int r = n - 1; r >= 0; r--) {
                counts[r] = r + 1;
                reversed[r] = total;
                total += r + 1;
            }
            int[] mine = new int[me + 1];
            Arrays.fill(mine, 10 * me + round);
            int[] gatheredv = new int[(int) total];
            started.add(world.igatherv(MemorySegment.ofArray(mine), me + 1, Datatype.INT, MemorySegment.ofArray(gatheredv), counts,
                    reversed, root));
            // iscatter into native memory
            int[] toScatter = new int[n];
            for (int r = 0; r < n; r++) {
                toScatter[r] = 3 * r + round;
            }
            MemorySegment scattered = arena.allocate(ValueLayout.JAVA_INT);
            started.add(world.iscatter(MemorySegment.ofArray(toScatter), 1, Datatype.INT, scattered, root));
            // iscatterv, in place at the root
            int[] scatterSource = new int[(int) total];
            for (int r = 0; r < n; r++) {
                Arrays.fill(scatterSource, (int) reversed[r], (int) (reversed[r] + counts[r]), 20 * r + round);
            }
            int[] scatteredv = new int[me + 1];
            started.add(world.iscatterv(MemorySegment.ofArray(scatterSource), counts, reversed, Datatype.INT,
                    me == root ? Communicator.IN_PLACE : MemorySegment.ofArray(scatteredv), me + 1, root));
            // iallgatherv in place
            int[] everyone = new int[(int) total];
            Arrays.fill(everyone, (int) reversed[me], (int) (reversed[me] + me + 1), 30 * me + round);
            started.add(world.iallgatherv(Communicator.IN_PLACE, me + 1, Datatype.INT, MemorySegment.ofArray(everyone), counts,
                    reversed));
            // ialltoall in place: block j of rank i arrives as block i of rank j
            int[] exchanged = new int[n];
            for (int r = 0; r < n; r++) {
                exchanged[r] = 100 * me + r;
            }
            started.add(world.ialltoall(Communicator.IN_PLACE, 1, Datatype.INT, MemorySegment.ofArray(exchanged)));
            // ialltoallv: rank i sends j+1 longs of 1000*i+j to rank j
            long[] sendCounts = new long[n];
            long[] sendDispls = new long[n];
            long[] recvCounts = new long[n];
            long[] recvDispls = new long[n];
            long sendTotal = 0;
            for (int r = 0; r < n; r++) {
                sendCounts[r] = r + 1;
                sendDispls[r] = sendTotal;
                sendTotal += r + 1;
                recvCounts[r] = me + 1;
                recvDispls[r] = (long) r * (me + 1);
            }
            long[] outgoing = new long[(int) sendTotal];
            for (int r = 0; r < n; r++) {
                Arrays.fill(outgoing, (int) sendDispls[r], (int) (sendDispls[r] + r + 1), 1000L * me + r);
            }
            long[] incoming = new long[n * (me + 1)];
            started.add(world.ialltoallv(MemorySegment.ofArray(outgoing), sendCounts, sendDispls, Datatype.LONG,
                    MemorySegment.ofArray(incoming), recvCounts, recvDispls));
            // ireduce with a non-commutative user operation: rank order gives rank 0's element
            int[] reduced = {-1};
            started.add(world.ireduce(MemorySegment.ofArray(new int[] {50 + me}), MemorySegment.ofArray(reduced), 1, Datatype.INT,
                    first, root));
            // iallreduce in place over native memory
            MemorySegment sum = arena.allocate(ValueLayout.JAVA_DOUBLE);
            sum.set(ValueLayout.JAVA_DOUBLE, 0, me + 0.25);
            started.add(world.iallreduce(Communicator.IN_PLACE, sum, 1, Datatype.DOUBLE, Op.SUM));
            // ireduceScatter with uneven counts; ireduceScatterBlock in place
            int[] contributions = new int[(int) total];
            Arrays.fill(contributions, me + 1);
            int[] myBlock = new int[me + 1];
            long[] forward = new long[n];
            for (int r = 0; r < n; r++) {
                forward[r] = r + 1;
            }
            started.add(world.ireduceScatter(MemorySegment.ofArray(contributions), MemorySegment.ofArray(myBlock), forward,
                    Datatype.INT, Op.SUM));
            long[] blocks = new long[2 * n];
            Arrays.fill(blocks, me + 2L);
            started.add(world.ireduceScatterBlock(Communicator.IN_PLACE, MemorySegment.ofArray(blocks), 2, Datatype.LONG, Op.SUM));
            // iscan with the left projection; iexscan leaves rank 0's buffer alone, also in place
            int[] scanned = new int[1];
            started.add(world.iscan(MemorySegment.ofArray(new int[] {60 + me}), MemorySegment.ofArray(scanned), 1, Datatype.INT,
                    first));
            int[] exclusive = {-42};
            started.add(world.iexscan(MemorySegment.ofArray(new int[] {me + 1}), MemorySegment.ofArray(exclusive), 1,
                    Datatype.INT, Op.SUM));
            int[] exclusiveInPlace = {me + 1};
            started.add(world.iexscan(Communicator.IN_PLACE, MemorySegment.ofArray(exclusiveInPlace), 1, Datatype.INT, Op.SUM));

            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).await();
            }

            String at = " (round " + round + ", rank " + me + ")";
            for (int r = 0; r < n; r++) {
                check(me != root || gathered[r] == 7 * r + round, "igather in place" + at + ": " + Arrays.toString(gathered));
                for (int k = 0; k <= r; k++) {
                    check(me != root || gatheredv[(int) reversed[r] + k] == 10 * r + round,
                            "igatherv" + at + ": " + Arrays.toString(gatheredv));
                    check(everyone[(int) reversed[r] + k] == 30 * r + round, "iallgatherv in place" + at + ": "
                            + Arrays.toString(everyone));
                }
                check(exchanged[r] == 100 * r + me, "ialltoall in place" + at + ": " + Arrays.toString(exchanged));
                for (int k = 0; k <= me; k++) {
                    check(incoming[r * (me + 1) + k] == 1000L * r + me, "ialltoallv" + at + ": " + Arrays.toString(incoming));
                }
            }
            check(scattered.get(ValueLayout.JAVA_INT, 0) == 3 * me + round, "iscatter into native memory" + at);
            int[] expectedScatterv = new int[me + 1];
            Arrays.fill(expectedScatterv, 20 * me + round);
            int[] gotScatterv = me == root ? Arrays.copyOfRange(scatterSource, (int) reversed[me], (int) reversed[me] + me + 1)
                    : scatteredv;
            check(Arrays.equals(gotScatterv, expectedScatterv), "iscatterv" + at + ": " + Arrays.toString(gotScatterv));
            check(me != root ? reduced[0] == -1 : reduced[0] == 50, "ireduce, non-commutative" + at + ": " + reduced[0]);
            check(sum.get(ValueLayout.JAVA_DOUBLE, 0) == n * (n - 1) / 2.0 + 0.25 * n, "iallreduce in place, native" + at);
            int triangle = n * (n + 1) / 2;
            for (int k = 0; k <= me; k++) {
                check(myBlock[k] == triangle, "ireduce_scatter" + at + ": " + Arrays.toString(myBlock));
            }
            long blockSum = (long) n * (n + 3) / 2;
            check(blocks[0] == blockSum && blocks[1] == blockSum, "ireduce_scatter_block in place" + at + ": " + Arrays.toString(blocks));
            check(scanned[0] == 60, "iscan, non-commutative" + at + ": " + scanned[0]);
            int before = me * (me + 1) / 2;
            check(me == 0 ? exclusive[0] == -42 : exclusive[0] == before, "iexscan" + at + ": " + exclusive[0]);
            check(me == 0 ? exclusiveInPlace[0] == 1 : exclusiveInPlace[0] == before, "iexscan in place" + at + ": "
                    + exclusiveInPlace[0]);
        }
    }
}
