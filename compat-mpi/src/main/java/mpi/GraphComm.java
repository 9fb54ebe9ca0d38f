package mpi;

import org.lockstep.api.Communicator;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator with a graph topology: a distributed graph ({@code MPI_Dist_graph_create},
 * {@code MPI_Dist_graph_create_adjacent}), Lockstep's {@link DistGraphCommunicator}, or a general
 * graph ({@code MPI_Graph_create}, {@link Intracomm#createGraph}), a distributed graph that also
 * keeps the whole graph's index and edges for {@link #getDims} and {@link #getNeighbors} (on a
 * distributed graph those fail with {@code MPI.ERR_TOPOLOGY}, as in MPI).
 */
public final class GraphComm extends Intracomm {
    /** A general graph's index and edges ({@code MPI_Graph_create}); null for a distributed graph. */
    private final int[] index;
    private final int[] edges;

    GraphComm(Communicator comm, int[] members, String name) {
        this(comm, members, name, null, null);
    }

    GraphComm(Communicator comm, int[] members, String name, int[] index, int[] edges) {
        super(comm, members, name);
        this.index = index == null ? null : index.clone();
        this.edges = edges == null ? null : edges.clone();
    }

    /** MPI 4.1 §8.5.3's conditions on a general graph's arguments. */
    static void checkGraph(String call, int[] index, int[] edges, int size) throws MPIException {
        if (index == null || edges == null) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "index and edges must be given");
        }
        if (index.length > size) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "a graph of " + index.length + " nodes on " + size + " ranks");
        }
        int before = 0;
        for (int i = 0; i < index.length; i++) {
            if (index[i] < before || index[i] > edges.length) {
                throw ErrorClasses.argument(ErrorClasses.ARG, call, "index[" + i + "] = " + index[i]
                        + ": the index must not decrease and must end at most at the " + edges.length + " edges");
            }
            before = index[i];
        }
        for (int i = 0; i < before; i++) {
            if (edges[i] < 0 || edges[i] >= index.length) {
                throw ErrorClasses.argument(ErrorClasses.RANK, call, "edges[" + i + "] = " + edges[i] + " is not a node of the "
                        + index.length + "-node graph");
            }
        }
    }

    /** Whether every pair of nodes has as many edges one way as the other. */
    static boolean isSymmetric(int[] index, int[] edges) {
        java.util.Map<Long, Integer> count = new java.util.HashMap<>();
        for (int node = 0; node < index.length; node++) {
            for (int e = node == 0 ? 0 : index[node - 1]; e < index[node]; e++) {
                count.merge(((long) node << 32) | edges[e], 1, Integer::sum);
            }
        }
        for (java.util.Map.Entry<Long, Integer> edge : count.entrySet()) {
            long reverse = (edge.getKey() << 32) | (edge.getKey() >>> 32);
            if (!edge.getValue().equals(count.get(reverse))) {
                return false;
            }
        }
        return true;
    }

    @Override
    int topology() {
        return index != null ? MPI.GRAPH : MPI.DIST_GRAPH;
    }

    @Override
    public GraphComm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public GraphComm dup() throws MPIException {
        return inherit(new GraphComm(dupCommunicator("GraphComm.dup", null), members, this + " (dup)", index, edges));
    }

    @Override
    public GraphComm iDup() throws MPIException {
        return inherit(new GraphComm(null, members, this + " (idup)", index, edges)).awaitingDuplicate(startDup("GraphComm.iDup"),
                "GraphComm.iDup");
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        return inherit(new GraphComm(dupCommunicator("GraphComm.dupWithInfo", info == null ? MPI.INFO_NULL : info), members,
                this + " (dup)", index, edges));
    }

    private void requireGraph(String call) throws MPIException {
        live(call);
        if (index == null) {
            throw fail(ErrorClasses.argument(ErrorClasses.TOPOLOGY, call, "this is a distributed graph, which keeps no index "
                    + "and edges (MPI_Graph_create makes a general graph)"));
        }
    }

    /** The graph's index and edges ({@code MPI_Graphdims_get}, {@code MPI_Graph_get}). */
    public GraphParms getDims() throws MPIException {
        requireGraph("GraphComm.getDims");
        return new GraphParms(index, java.util.Arrays.copyOf(edges, index.length == 0 ? 0 : index[index.length - 1]));
    }

    /** Node {@code rank}'s neighbours, in the order given ({@code MPI_Graph_neighbors}). */
    public int[] getNeighbors(int rank) throws MPIException {
        String call = "GraphComm.getNeighbors";
        requireGraph(call);
        if (rank < 0 || rank >= index.length) {
            throw fail(ErrorClasses.argument(ErrorClasses.RANK, call, "rank " + rank + " is not a node of the "
                    + index.length + "-node graph"));
        }
        return java.util.Arrays.copyOfRange(edges, rank == 0 ? 0 : index[rank - 1], index[rank]);
    }

    /** This rank's sources and destinations, with their weights if the graph has them ({@code MPI_Dist_graph_neighbors}). */
    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        String call = "GraphComm.getDistGraphNeighbors";
        DistGraphCommunicator graph = (DistGraphCommunicator) live(call);
        try {
            DistGraphCommunicator.Neighbors n = graph.neighbors();
            return new DistGraphNeighbors(n.sources(), n.sourceWeights(), n.destinations(), n.destinationWeights(),
                    n.sourceWeights() != null);
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /**
     * This rank's number in a graph of {@code index.length} nodes over this communicator, or
     * {@code MPI.UNDEFINED} beyond it ({@code MPI_Graph_map}): without reordering, its own rank.
     */
    public int map(int[] index, int[] edges) throws MPIException {
        String call = "GraphComm.map";
        Communicator c = live(call);
        if (index == null || edges == null) {
            throw fail(ErrorClasses.argument(ErrorClasses.ARG, call, "index and edges must be given"));
        }
        if (index.length > c.size()) {
            throw fail(ErrorClasses.argument(ErrorClasses.TOPOLOGY, call, "a graph of " + index.length + " nodes does not fit "
                    + c.size() + " ranks"));
        }
        return c.rank() < index.length ? c.rank() : MPI.UNDEFINED;
    }
}
