package org.lockstep.api;

/** The kind of process topology a communicator carries ({@code MPI_Topo_test}, MPI 4.1 §8.5.5). */
public enum Topology {
    /** No topology ({@code MPI_UNDEFINED}). */
    NONE("MPI_UNDEFINED"),
    /** A Cartesian grid: a {@link CartesianCommunicator} ({@code MPI_CART}). */
    CARTESIAN("MPI_CART"),
    /** A distributed graph: a {@link DistGraphCommunicator} ({@code MPI_DIST_GRAPH}). */
    DIST_GRAPH("MPI_DIST_GRAPH");

    private final String mpiName;

    Topology(String mpiName) {
        this.mpiName = mpiName;
    }

    /** The MPI constant this corresponds to. */
    public String mpiName() {
        return mpiName;
    }
}
