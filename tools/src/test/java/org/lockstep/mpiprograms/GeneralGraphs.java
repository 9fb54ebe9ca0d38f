package org.lockstep.mpiprograms;

import mpi.GraphComm;
import mpi.GraphParms;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * General graph topologies (createGraph): a ring over all ranks but the last, with a self-loop
 * at node 0 (so the last rank gets a null communicator), its index and edges (getDims),
 * neighbours (getNeighbors), neighborAllGather over it, a graph of no nodes, and the errors for a
 * bad graph under MPI.ERRORS_RETURN.
 */
public final class GeneralGraphs {
    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int size = world.getSize();
        int nodes = size - 1;
        // node i's neighbours: i - 1 and i + 1 around the ring; node 0 also itself
        int[] index = new int[nodes];
        int[] edges = new int[2 * nodes + 1];
        int e = 0;
        for (int i = 0; i < nodes; i++) {
            if (i == 0) {
                edges[e++] = 0;
            }
            edges[e++] = (i + nodes - 1) % nodes;
            edges[e++] = (i + 1) % nodes;
            index[i] = e;
        }
        GraphComm graph = world.createGraph(index, edges, false);
        if (rank == nodes) {
            Check.that(graph.isNull(), "a rank beyond the graph's nodes gets a null communicator");
        } else {
            Check.equal(MPI.GRAPH, graph.getTopology(), "createGraph makes an MPI.GRAPH");
            Check.equal(nodes, graph.getSize(), "the graph's communicator has a rank per node");
            GraphParms dims = graph.getDims();
            Check.equal(nodes, dims.getIndexCount(), "getDims' nodes");
            Check.equal(2 * nodes + 1, dims.getEdgeCount(), "getDims' edges");
            Check.equal(index[nodes - 1], dims.getIndex(nodes - 1), "getDims' index");
            int[] neighbours = graph.getNeighbors(rank);
            int first = rank == 0 ? 0 : index[rank - 1];
            Check.equal(java.util.Arrays.copyOfRange(edges, first, index[rank]), neighbours, "getNeighbors");
            int[] got = new int[neighbours.length];
            graph.neighborAllGather(new int[] {100 + rank}, 1, MPI.INT, got, 1, MPI.INT);
            for (int i = 0; i < neighbours.length; i++) {
                Check.equal(100 + neighbours[i], got[i], "neighborAllGather's block from neighbour " + neighbours[i]);
            }
            graph.setErrhandler(MPI.ERRORS_RETURN);
            Check.fails(MPI.ERR_RANK, "GraphComm.getNeighbors", () -> graph.getNeighbors(nodes));
            graph.free();
        }
        Check.that(world.createGraph(new int[0], new int[0], false).isNull(), "a graph of no nodes is a null communicator");
        world.setErrhandler(MPI.ERRORS_RETURN);
        Check.fails(MPI.ERR_ARG, "Intracomm.createGraph", () -> world.createGraph(new int[] {2, 1}, new int[] {1, 0}, false));
        Check.fails(MPI.ERR_RANK, "Intracomm.createGraph", () -> world.createGraph(new int[] {1}, new int[] {size}, false));
        world.setErrhandler(MPI.ERRORS_ARE_FATAL);
        Check.passed("general graphs");
        MPI.Finalize();
    }
}
