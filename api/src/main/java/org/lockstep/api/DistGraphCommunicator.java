package org.lockstep.api;

/**
 * A communicator with a distributed graph topology ({@code MPI_Dist_graph_create_adjacent},
 * {@code MPI_Dist_graph_create}, MPI 4.1 §8.5.3): made by {@link Communicator#createDistGraphAdjacent}
 * or {@link Communicator#createDistGraph}. Each rank knows the edges into it (its sources) and out
 * of it (its destinations); the neighbourhood collectives receive from the sources and send to the
 * destinations in the order {@link #neighbors()} gives. An edge may repeat: the k-th edge from a
 * rank to another matches the k-th edge into that rank from it.
 *
 * <p>A duplicate ({@link #dup()}) keeps the topology; other constructors do not.
 */
public interface DistGraphCommunicator extends Communicator {
    /** How many edges come in and go out, and whether they carry weights ({@code MPI_Dist_graph_neighbors_count}). */
    record NeighborCounts(int indegree, int outdegree, boolean weighted) {
    }

    /**
     * The edges into and out of this rank ({@code MPI_Dist_graph_neighbors}): ranks, in the order
     * the neighbourhood collectives use, and their weights (null if the graph is unweighted).
     */
    record Neighbors(int[] sources, int[] sourceWeights, int[] destinations, int[] destinationWeights) {
    }

    /** The degrees of this rank ({@code MPI_Dist_graph_neighbors_count}). */
    NeighborCounts neighborsCount();

    /** The neighbours of this rank ({@code MPI_Dist_graph_neighbors}); copies. */
    Neighbors neighbors();
}
