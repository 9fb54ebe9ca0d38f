package mpi;

import org.lockstep.api.Communicator;

/**
 * A communicator with a graph or distributed graph topology ({@code MPI_Graph_create},
 * {@code MPI_Dist_graph_create}). Topologies need Lockstep's API for them (issue 16): none is
 * made yet ({@link Intracomm#createGraph} throws).
 */
public final class GraphComm extends Intracomm {
    private static final String MISSING = "process topologies come with Lockstep's API for them (issue 16)";

    GraphComm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
    }

    @Override
    int topology() {
        return MPI.GRAPH;
    }

    @Override
    public GraphComm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private MPIException missing(String call) throws MPIException {
        live(call);
        return ErrorClasses.unsupported(call, MISSING);
    }

    @Override
    public GraphComm dup() throws MPIException {
        throw missing("GraphComm.dup");
    }

    @Override
    public GraphComm iDup() throws MPIException {
        throw missing("GraphComm.iDup");
    }

    @Override
    public GraphComm dupWithInfo(Info info) throws MPIException {
        throw missing("GraphComm.dupWithInfo");
    }

    public GraphParms getDims() throws MPIException {
        throw missing("GraphComm.getDims");
    }

    public int[] getNeighbors(int rank) throws MPIException {
        throw missing("GraphComm.getNeighbors");
    }

    public DistGraphNeighbors getDistGraphNeighbors() throws MPIException {
        throw missing("GraphComm.getDistGraphNeighbors");
    }

    public int map(int[] index, int[] edges) throws MPIException {
        throw missing("GraphComm.map");
    }
}
