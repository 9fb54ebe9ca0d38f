package org.lockstep.mpiprograms;

import java.nio.IntBuffer;

import mpi.CartComm;
import mpi.CartParms;
import mpi.DistGraphNeighbors;
import mpi.GraphComm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.ShiftParms;

/**
 * Process topologies: createDims, a 2-D periodic grid (getTopo, getCoords, getRank, shift, sub)
 * whose halo exchange by neighborAllToAll agrees with one by shift and sendRecv, a ring as a
 * distributed graph (adjacent and named by rank 0) with neighborAllGather, iNeighborAllToAll and
 * neighborAllToAllv, and the topology errors under MPI.ERRORS_RETURN.
 */
public final class Topologies {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        Check.equal(MPI.UNDEFINED, world.getTopology(), "the world has no topology");

        int[] dims = new int[2];
        CartComm.createDims(size, dims);
        Check.equal(size, dims[0] * dims[1], "createDims multiplies out");
        CartComm grid = world.createCart(dims, new boolean[] {true, true}, false);
        Check.equal(MPI.CART, grid.getTopology(), "a grid is MPI.CART");
        CartParms topo = grid.getTopo();
        int[] me = grid.getCoords(rank);
        Check.equal(2, topo.getDimCount(), "dimensions");
        Check.equal(me[0], topo.getCoord(0), "getTopo's coordinate 0");
        Check.equal(rank, grid.getRank(me), "getRank inverts getCoords");
        Check.equal(rank / dims[1], me[0], "row-major coordinate 0");

        // halo exchange: each rank sends 10 * rank + block to each neighbour; block s lands in the neighbour's block s ^ 1
        int[] halo = new int[4];
        int[] blocks = {10 * rank, 10 * rank + 1, 10 * rank + 2, 10 * rank + 3};
        grid.neighborAllToAll(blocks, 1, MPI.INT, halo, 1, MPI.INT);
        for (int d = 0; d < 2; d++) {
            ShiftParms s = grid.shift(d, 1);
            int[] fromBelow = new int[1];
            grid.sendRecv(new int[] {10 * rank + 2 * d + 1}, 1, MPI.INT, s.getRankDest(), 7, fromBelow, 1, MPI.INT, s.getRankSource(), 7);
            Check.equal(fromBelow[0], halo[2 * d], "halo block " + 2 * d + " = what shift(" + d + ", 1) brings");
            Check.equal(10 * s.getRankDest() + 2 * d, halo[2 * d + 1], "halo block " + (2 * d + 1) + " from the upper neighbour");
        }
        CartComm row = grid.sub(new boolean[] {false, true});
        Check.equal(dims[1], row.getSize(), "a row of the grid");
        Check.equal(me[1], row.getRank(), "rank in the row");
        CartComm copy = grid.dup();
        Check.equal(rank, copy.getRank(copy.getCoords(rank)), "a duplicate keeps the grid");
        copy.free();
        row.free();
        grid.free();

        // a ring as a distributed graph
        int prev = (rank + size - 1) % size;
        int next = (rank + 1) % size;
        GraphComm ring = world.createDistGraphAdjacent(new int[] {prev}, new int[] {next}, MPI.INFO_NULL, false);
        Check.equal(MPI.DIST_GRAPH, ring.getTopology(), "a distributed graph is MPI.DIST_GRAPH");
        DistGraphNeighbors n = ring.getDistGraphNeighbors();
        Check.equal(1, n.getInDegree(), "in-degree");
        Check.equal(prev, n.getSource(0), "the source");
        Check.that(!n.isWeighted(), "an unweighted graph");
        int[] got = new int[1];
        ring.neighborAllGather(new int[] {rank}, 1, MPI.INT, got, 1, MPI.INT);
        Check.equal(prev, got[0], "neighborAllGather from the previous rank");
        IntBuffer out = MPI.newIntBuffer(1).put(0, 100 + rank);
        IntBuffer in = MPI.newIntBuffer(1);
        Request pending = ring.iNeighborAllToAll(out, 1, MPI.INT, in, 1, MPI.INT);
        pending.waitFor();
        Check.equal(100 + prev, in.get(0), "iNeighborAllToAll from the previous rank");
        int[] spread = {-1, -1, -1};
        ring.neighborAllToAllv(new int[] {5, 200 + rank}, new int[] {1}, new int[] {1}, MPI.INT, spread, new int[] {1}, new int[] {2},
                MPI.INT);
        Check.equal(new int[] {-1, -1, 200 + prev}, spread, "neighborAllToAllv at displacement 2");
        ring.free();
        int[] sources = rank == 0 ? new int[size] : new int[0];
        int[] degrees = rank == 0 ? new int[size] : new int[0];
        int[] destinations = rank == 0 ? new int[size] : new int[0];
        for (int r = 0; r < sources.length; r++) {
            sources[r] = r;
            degrees[r] = 1;
            destinations[r] = (r + 1) % size;
        }
        GraphComm named = world.createDistGraph(sources, degrees, destinations, MPI.INFO_NULL, false);
        DistGraphNeighbors edges = named.getDistGraphNeighbors();
        Check.equal(prev, edges.getSource(0), "an edge named by rank 0 reaches its destination");
        Check.equal(next, edges.getDestination(0), "and its source");
        named.free();

        world.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_TOPOLOGY, "Intracomm.createCart", () -> world.createCart(new int[] {size + 1}, new boolean[1], false));
        Check.fails(MPI.ERR_DIMS, "Intracomm.createCart", () -> world.createCart(new int[] {size}, new boolean[2], false));
        Check.fails(MPI.ERR_TOPOLOGY, "Comm.neighborAllGather", () -> world.neighborAllGather(new int[1], 1, MPI.INT, new int[1], 1,
                MPI.INT));
        Check.passed("topologies");
        MPI.Finalize();
    }
}
