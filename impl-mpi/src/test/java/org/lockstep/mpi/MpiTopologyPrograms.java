package org.lockstep.mpi;

import static org.lockstep.mpi.MpiPrograms.check;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.Info;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * Process topologies on the {@code mpi} provider (the SPI's topologies over its native split and
 * dup): a periodic 2-D grid whose neighbour alltoall puts block s of each sender in block s ^ 1 of
 * the receiver, a row of it from sub, and a ring as a distributed graph.
 */
final class MpiTopologyPrograms {
    private MpiTopologyPrograms() {
    }

    static void topologies(Communicator world) {
        int me = world.rank();
        int n = world.size();
        CartesianCommunicator grid = world.createCart(CartesianCommunicator.dimsCreate(n, new int[2]), new boolean[] {true, true}, false);
        int[] blocks = {100 * me, 100 * me + 1, 100 * me + 2, 100 * me + 3};
        int[] halo = new int[4];
        grid.neighborAlltoall(MemorySegment.ofArray(blocks), 1, Datatype.INT, MemorySegment.ofArray(halo));
        int[] gathered = new int[4];
        Request pending = grid.ineighborAllgather(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT,
                MemorySegment.ofArray(gathered), 1, Datatype.INT);
        pending.await();
        for (int d = 0; d < 2; d++) {
            CartesianCommunicator.Shift s = grid.shift(d, 1);
            check(halo[2 * d] == 100 * s.source() + 2 * d + 1, "block from below in dimension " + d + ": " + Arrays.toString(halo));
            check(halo[2 * d + 1] == 100 * s.destination() + 2 * d, "block from above in dimension " + d + ": " + Arrays.toString(halo));
            check(gathered[2 * d] == s.source() && gathered[2 * d + 1] == s.destination(), "neighbour allgather in dimension " + d);
        }
        CartesianCommunicator row = grid.sub(new boolean[] {false, true});
        int[] sum = new int[1];
        row.allreduce(MemorySegment.ofArray(new int[] {1}), MemorySegment.ofArray(sum), 1, Datatype.INT, Op.SUM);
        check(sum[0] == grid.dims()[1], "a row of the grid has dims[1] ranks");
        row.close();
        grid.close();
        DistGraphCommunicator ring = world.createDistGraphAdjacent(new int[] {(me + n - 1) % n}, null, new int[] {(me + 1) % n}, null,
                Info.EMPTY, false);
        int[] got = new int[1];
        ring.neighborAllgather(MemorySegment.ofArray(new int[] {me}), 1, Datatype.INT, MemorySegment.ofArray(got));
        check(got[0] == (me + n - 1) % n, "ring neighbour allgather");
        ring.close();
    }
}
