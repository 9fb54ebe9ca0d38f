package mpi;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.DistGraphCommunicator;

/**
 * The neighbourhood collectives of {@link Comm} ({@code MPI_Neighbor_…}) over Lockstep's: the
 * receive side has a block per source neighbour and the send side one per destination, so the
 * v forms' arrays are checked against the topology's degrees. On a communicator without a
 * topology Lockstep's call fails with {@code MPI.ERR_TOPOLOGY}.
 */
final class NeighborCollectives {
    private final Comm comm;
    private final Collectives collectives;

    NeighborCollectives(Comm comm) {
        this.comm = comm;
        this.collectives = comm.collectives();
    }

    /** Sources, then destinations: {@code 2 * dimensions} each on a grid, the degrees on a graph, none elsewhere. */
    private static int[] degrees(Communicator c) {
        if (c instanceof CartesianCommunicator grid) {
            return new int[] {2 * grid.dimensions(), 2 * grid.dimensions()};
        }
        if (c instanceof DistGraphCommunicator graph) {
            DistGraphCommunicator.NeighborCounts n = graph.neighborsCount();
            return new int[] {n.indegree(), n.outdegree()};
        }
        return new int[2];
    }

    /** The blocking and the started form of a collective with one count and datatype a side. */
    private interface FixedForm<T> {
        T call(Communicator c, Collectives.Fixed x);
    }

    private Request fixed(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                          Datatype recvtype, FixedForm<Void> blocking, FixedForm<org.lockstep.api.Request> started) throws MPIException {
        Communicator c = comm.live(call);
        Collectives.Fixed x = Collectives.Fixed.of(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        return collectives.run(call, start, recvbuf, x.recv(), () -> blocking.call(c, x), () -> started.call(c, x));
    }

    Request allGather(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                      Datatype recvtype) throws MPIException {
        return fixed(call, start, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, (c, x) -> {
            c.neighborAllgather(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(), x.recvType());
            return null;
        }, (c, x) -> c.ineighborAllgather(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(), x.recvType()));
    }

    Request allGatherv(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount,
                       int[] displs, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        int sources = degrees(c)[0];
        Collectives.Fixed x = Collectives.Fixed.of(call, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype);
        long[] counts = Collectives.counts(call, recvcount, recvtype, sources);
        long[] displacements = Collectives.widen(call, displs, sources);
        return collectives.run(call, start, recvbuf, x.recv(), () -> c.neighborAllgatherv(x.send(), x.sendCount(), x.sendType(), x.recv(),
                counts, displacements, x.recvType()), () -> c.ineighborAllgatherv(x.send(), x.sendCount(), x.sendType(), x.recv(), counts,
                displacements, x.recvType()));
    }

    Request allToAll(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount,
                     Datatype recvtype) throws MPIException {
        return fixed(call, start, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, (c, x) -> {
            c.neighborAlltoall(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(), x.recvType());
            return null;
        }, (c, x) -> c.ineighborAlltoall(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(), x.recvType()));
    }

    Request allToAllv(String call, boolean start, Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                      Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        int[] degrees = degrees(c);
        Collectives.Varying x = Collectives.Varying.of(call, sendbuf, sendcount, sdispls, sendtype, degrees[1], recvbuf, recvcount, rdispls,
                recvtype, degrees[0]);
        return collectives.run(call, start, recvbuf, x.recv(), () -> c.neighborAlltoallv(x.send(), x.sendCounts(), x.sendDispls(),
                x.sendType(), x.recv(), x.recvCounts(), x.recvDispls(), x.recvType()), () -> c.ineighborAlltoallv(x.send(), x.sendCounts(),
                x.sendDispls(), x.sendType(), x.recv(), x.recvCounts(), x.recvDispls(), x.recvType()));
    }
}
