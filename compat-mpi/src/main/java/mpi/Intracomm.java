package mpi;

import java.lang.foreign.MemorySegment;
import java.nio.Buffer;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * A communicator within one group ({@code MPI_Comm} that is not an intercommunicator): adds
 * split, create, scans, topologies and the dynamic-process calls. Ports connect groups of the job's
 * own ranks ({@link Ports}) and names are published within the job ({@link Names}); spawning
 * processes throws {@link MPIException}s of class {@link MPI#ERR_UNSUPPORTED_OPERATION}.
 */
public class Intracomm extends Comm {
    private static final String DYNAMIC = "Lockstep jobs have a fixed set of ranks: no processes are spawned (ports connect"
            + " groups of the job's own ranks)";

    Intracomm(String name) {
        super(name);
    }

    Intracomm(Communicator comm, int[] members, String name) {
        super(comm, members, name);
    }

    /** The result of a split for a rank that joined no communicator ({@code MPI_COMM_NULL}). */
    static Intracomm nullComm() {
        return new Intracomm(null, null, "MPI_COMM_NULL");
    }

    @Override
    public Intracomm clone() {
        try {
            return dup();
        } catch (MPIException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    @Override
    public Intracomm dup() throws MPIException {
        return inherit(new Intracomm(dupCommunicator("Intracomm.dup", null), members, this + " (dup)"));
    }

    @Override
    public Intracomm iDup() throws MPIException {
        return inherit(new Intracomm(null, members, this + " (idup)")).awaitingDuplicate(startDup("Intracomm.iDup"), "Intracomm.iDup");
    }

    @Override
    public Intracomm dupWithInfo(Info info) throws MPIException {
        return inherit(new Intracomm(dupCommunicator("Intracomm.dupWithInfo", info == null ? MPI.INFO_NULL : info), members,
                this + " (dup)"));
    }

    /**
     * Partitions the group by {@code colour}, ordering each part by {@code key} and then by rank
     * here; a rank with colour {@code MPI.UNDEFINED} gets a null communicator
     * ({@link #isNull()}) ({@code MPI_Comm_split}).
     */
    public final Intracomm split(int colour, int key) throws MPIException {
        Communicator c = live("Intracomm.split");
        try {
            Communicator part = c.split(colour == MPI.UNDEFINED ? Communicator.UNDEFINED : colour, key);
            return part == null ? nullComm() : new Intracomm(part, membersOf(part), this + " (split)");
        } catch (LockstepException e) {
            throw fail("Intracomm.split", e);
        }
    }

    /** The world ranks of {@code part}'s members: each tells its own (a collective over {@code part}). */
    final int[] membersOf(Communicator part) {
        int[] worldRanks = new int[part.size()];
        MemorySegment mine = MemorySegment.ofArray(new int[] {members[comm.rank()]});
        part.allgather(mine, 1, org.lockstep.api.Datatype.INT, MemorySegment.ofArray(worldRanks));
        return worldRanks;
    }

    /**
     * Splits by the kind of resource the ranks share ({@code MPI_Comm_split_type}): {@link #TYPE_SHARED}
     * (the ranks on one device, for the mailbox transport) is the one kind; the hints are not used.
     */
    public final Intracomm splitType(int splitType, int key, Info info) throws MPIException {
        String call = "Intracomm.splitType";
        Communicator c = live(call);
        if (splitType != TYPE_SHARED) {
            throw fail(splitType == MPI.UNDEFINED
                    ? ErrorClasses.unsupported(call, "a rank cannot leave a split by type with MPI.UNDEFINED: Lockstep's split by type "
                            + "places every rank")
                    : ErrorClasses.argument(ErrorClasses.ARG, call, "split type " + splitType + " is not Comm.TYPE_SHARED"));
        }
        try {
            Communicator part = c.splitType(Communicator.SplitType.SHARED, key);
            return new Intracomm(part, membersOf(part), this + " (shared)");
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** A communicator of the members of {@code group}, in its order; null for the others ({@code MPI_Comm_create}); collective. */
    public final Intracomm create(Group group) throws MPIException {
        live("Intracomm.create");
        int rankInGroup = group.getRank();
        Intracomm part = split(rankInGroup == MPI.UNDEFINED ? MPI.UNDEFINED : 0, rankInGroup);
        if (!part.isNull()) {
            part.members = group.worldRanks().clone();
        }
        return part;
    }

    /** As {@link #create}, collective over the group's members only ({@code MPI_Comm_create_group}). */
    public final Intracomm createGroup(Group group, int tag) throws MPIException {
        String call = "Intracomm.createGroup";
        Communicator c = live(call);
        int[] worldRanks = group.worldRanks();
        try {
            Communicator part = c.createGroup(org.lockstep.api.Group.of(members[c.rank()], worldRanks), tag);
            return part == null ? nullComm() : new Intracomm(part, worldRanks.clone(), this + " (group)");
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /**
     * A Cartesian grid over the first ranks ({@code MPI_Cart_create}); collective. Ranks keep their
     * order; ranks beyond the grid get a null communicator ({@link #isNull()}).
     */
    public final CartComm createCart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        String call = "Intracomm.createCart";
        Communicator c = live(call);
        try {
            org.lockstep.api.CartesianCommunicator grid = c.createCart(dims, periods, reorder);
            return grid == null ? CartComm.nullCart()
                    : new CartComm(grid, java.util.Arrays.copyOf(members, grid.size()), this + " (cart)");
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /**
     * A general graph of {@code index.length} nodes ({@code MPI_Graph_create}); collective. Node
     * i's neighbours are {@code edges[index[i-1] .. index[i])}. The ranks beyond the nodes get a
     * null communicator; the others a distributed graph of the same edges (for a symmetric graph,
     * each node's neighbours as both its sources and destinations, in their order), which also keeps the whole graph for {@link GraphComm#getDims} and
     * {@link GraphComm#getNeighbors}. Ranks are not reordered (MPI lets {@code reorder} be ignored).
     */
    public final GraphComm createGraph(int[] index, int[] edges, boolean reorder) throws MPIException {
        String call = "Intracomm.createGraph";
        Communicator c = live(call);
        try {
            GraphComm.checkGraph(call, index, edges, c.size());
        } catch (MPIException e) {
            throw fail(e);
        }
        int nodes = index.length;
        int me = c.rank();
        try {
            Communicator part = c.split(me < nodes ? 0 : Communicator.UNDEFINED, me);
            if (me >= nodes) {
                return new GraphComm(null, members, "MPI_COMM_NULL");
            }
            int first = me == 0 ? 0 : index[me - 1];
            int[] neighbours = java.util.Arrays.copyOfRange(edges, first, index[me]);
            // a symmetric graph's neighbourhood collectives take the neighbours in their order both ways (MPI 4.1 §8.6)
            org.lockstep.api.DistGraphCommunicator graph = GraphComm.isSymmetric(index, edges)
                    ? part.createDistGraphAdjacent(neighbours, null, neighbours, null, org.lockstep.api.Info.EMPTY, false)
                    : part.createDistGraph(new int[] {me}, new int[] {neighbours.length}, neighbours, null, org.lockstep.api.Info.EMPTY,
                            false);
            part.close();
            return new GraphComm(graph, java.util.Arrays.copyOf(members, nodes), this + " (graph)", index, edges);
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** A distributed graph of edges any rank may name ({@code MPI_Dist_graph_create}); collective. */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info info, boolean reorder)
            throws MPIException {
        return distGraph("Intracomm.createDistGraph", c -> c.createDistGraph(sources, degrees, destinations, weights,
                Info.toHints(info), reorder));
    }

    /** {@link #createDistGraph} without weights ({@code MPI_UNWEIGHTED}). */
    public final GraphComm createDistGraph(int[] sources, int[] degrees, int[] destinations, Info info, boolean reorder)
            throws MPIException {
        return createDistGraph(sources, degrees, destinations, null, info, reorder);
    }

    /** A distributed graph of the edges each rank names for itself ({@code MPI_Dist_graph_create_adjacent}); collective. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations, int[] destWeights,
                                                   Info info, boolean reorder) throws MPIException {
        return distGraph("Intracomm.createDistGraphAdjacent", c -> c.createDistGraphAdjacent(sources, sourceWeights, destinations,
                destWeights, Info.toHints(info), reorder));
    }

    /** {@link #createDistGraphAdjacent} without weights. */
    public final GraphComm createDistGraphAdjacent(int[] sources, int[] destinations, Info info, boolean reorder) throws MPIException {
        return createDistGraphAdjacent(sources, null, destinations, null, info, reorder);
    }

    private GraphComm distGraph(String call, java.util.function.Function<Communicator, org.lockstep.api.DistGraphCommunicator> make)
            throws MPIException {
        Communicator c = live(call);
        try {
            return new GraphComm(make.apply(c), members, this + " (graph)");
        } catch (LockstepException e) {
            throw fail(call, e);
        }
    }

    /** Inclusive prefix reduction: rank i gets ranks 0..i combined ({@code MPI_Scan}). */
    public final void scan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        collectives().scan("Intracomm.scan", false, false, sendbuf, recvbuf, count, type, op);
    }

    /** {@link #scan} in place. */
    public final void scan(Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        collectives().scan("Intracomm.scan", false, false, null, recvbuf, count, type, op);
    }

    public final Request iScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        return collectives().scan("Intracomm.iScan", true, false, sendbuf, recvbuf, count, type, op);
    }

    public final Request iScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return collectives().scan("Intracomm.iScan", true, false, null, buf, count, type, op);
    }

    /** Exclusive prefix reduction: rank i gets ranks 0..i-1 combined; rank 0's buffer is untouched ({@code MPI_Exscan}). */
    public final void exScan(Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        collectives().scan("Intracomm.exScan", false, true, sendbuf, recvbuf, count, type, op);
    }

    /** {@link #exScan} in place. */
    public final void exScan(Object buf, int count, Datatype type, Op op) throws MPIException {
        collectives().scan("Intracomm.exScan", false, true, null, buf, count, type, op);
    }

    public final Request iExScan(Buffer sendbuf, Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        return collectives().scan("Intracomm.iExScan", true, true, sendbuf, recvbuf, count, type, op);
    }

    public final Request iExScan(Buffer buf, int count, Datatype type, Op op) throws MPIException {
        return collectives().scan("Intracomm.iExScan", true, true, null, buf, count, type, op);
    }

    private static MPIException dynamic(String call) throws MPIException {
        MPI.check();
        return ErrorClasses.unsupported(call, DYNAMIC);
    }

    /** A port this rank's groups accept connections on ({@code MPI_Open_port}); see {@link Ports}. */
    public static String openPort() throws MPIException {
        return Ports.open();
    }

    public static String openPort(Info info) throws MPIException {
        return Ports.open();
    }

    public static void closePort(String name) throws MPIException {
        Ports.close(name);
    }

    /** Waits for a group of this job to connect to {@code port}, opened by {@code root} ({@code MPI_Comm_accept}); collective. */
    public final Intercomm accept(String port, int root) throws MPIException {
        return accept(port, MPI.INFO_NULL, root);
    }

    public final Intercomm accept(String port, Info info, int root) throws MPIException {
        return joined("Intracomm.accept", port, root, true);
    }

    /** Connects this group to the group that accepts on {@code port} ({@code MPI_Comm_connect}); collective. */
    public final Intercomm connect(String port, int root) throws MPIException {
        return connect(port, MPI.INFO_NULL, root);
    }

    public final Intercomm connect(String port, Info info, int root) throws MPIException {
        return joined("Intracomm.connect", port, root, false);
    }

    private Intercomm joined(String call, String port, int root, boolean accepting) throws MPIException {
        Communicator local = live(call);
        try {
            org.lockstep.api.Intercommunicator inter = Ports.join(call, local, root, port, accepting);
            return new Intercomm(inter, members, this + " (" + (accepting ? "accepted" : "connected") + ")");
        } catch (LockstepException e) {
            throw fail(call, e);
        } catch (MPIException e) {
            throw fail(e);
        }
    }

    public static void publishName(String service, String port) throws MPIException {
        MPI.check();
        Names.publish("Intracomm.publishName", service, port);
    }

    public static void publishName(String service, Info info, String port) throws MPIException {
        MPI.check();
        Names.publish("Intracomm.publishName", service, port);
    }

    public static void unpublishName(String service, String port) throws MPIException {
        MPI.check();
        Names.unpublish("Intracomm.unpublishName", service, port);
    }

    public static void unpublishName(String service, Info info, String port) throws MPIException {
        MPI.check();
        Names.unpublish("Intracomm.unpublishName", service, port);
    }

    public static String lookupName(String service) throws MPIException {
        MPI.check();
        return Names.lookup("Intracomm.lookupName", service);
    }

    public static String lookupName(String service, Info info) throws MPIException {
        MPI.check();
        return Names.lookup("Intracomm.lookupName", service);
    }

    public final Intercomm spawn(String command, String[] argv, int maxprocs, Info info, int root, int[] errcodes) throws MPIException {
        throw dynamic("Intracomm.spawn");
    }

    public final Intercomm spawnMultiple(String[] commands, String[][] argv, int[] maxprocs, Info[] info, int root, int[] errcodes)
            throws MPIException {
        throw dynamic("Intracomm.spawnMultiple");
    }
}
