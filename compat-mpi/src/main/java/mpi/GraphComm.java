package mpi;

import org.lockstep.api.Communicator;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator with a distributed graph topology ({@code MPI_Dist_graph_create},
 * {@code MPI_Dist_graph_create_adjacent}): Lockstep's {@link DistGraphCommunicator}. Lockstep has
 * no general graphs of {@code MPI_Graph_create} ({@link Intracomm#createGraph} throws), so the
 * calls that read one ({@link #getDims}, {@link #getNeighbors}) fail with {@code MPI.ERR_TOPOLOGY},
 * as they do on a distributed graph in MPI.
 */
public final class GraphComm extends Intracomm {
    GraphComm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
    }

    @Override
    int topology() {
        return MPI.DIST_GRAPH;
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
        return inherit(new GraphComm(dupCommunicator("GraphComm.dup", null), members, this + " (dup)"));
    }

    @Override
    public GraphComm iDup() throws MPIException {
        return inherit(new GraphComm(null, members, this + " (idup)")).awaitingDuplicate(startDup("GraphComm.iDup"), "GraphComm.iDup");
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        return inherit(new GraphComm(dupCommunicator("GraphComm.dupWithInfo", info == null ? MPI.INFO_NULL : info), members,
                this + " (dup)"));
    }

    private MPIException notAGraph(String call) throws MPIException {
        live(call);
        return fail(ErrorClasses.argument(ErrorClasses.TOPOLOGY, call, "this is a distributed graph; the index and edges of "
                + "MPI_Graph_create graphs, which Lockstep does not make, are not kept"));
    }

    public GraphParms getDims() throws MPIException {
        throw notAGraph("GraphComm.getDims");
    }

    public int[] getNeighbors(int rank) throws MPIException {
        throw notAGraph("GraphComm.getNeighbors");
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
