package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

import org.lockstep.api.CartesianCommunicator;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Topology;
import org.lockstep.spi.events.CollectiveRecording;
import org.lockstep.spi.messaging.PersistentOperation;
import org.lockstep.spi.topology.CartesianGrid;
import org.lockstep.spi.topology.DistGraphEdges;
import org.lockstep.spi.topology.Neighborhood;

/**
 * The process topologies of {@link AbstractCommunicator} (MPI 4.1 chapter 8), once for every
 * provider: a topology communicator ({@link TopologyCommunicator}) is a new communicator of the
 * provider's (a split or a duplicate of this one) that carries the topology, and its
 * neighbourhood collectives run over a duplicate of that made with it ({@link NeighborhoodCollectives}).
 * On a communicator without a topology they fail with {@link ErrorClass#TOPOLOGY}.
 */
public abstract class TopologyTemplates extends PersistentCollectiveTemplates {
    /** Only the layers of this package extend it. */
    TopologyTemplates() {
    }

    /** The neighbourhood of this rank, or null on a communicator without a topology. */
    Neighborhood neighborhood() {
        return null;
    }

    /** The channel of the neighbourhood collectives (a topology communicator's own); null without a topology. */
    Communicator neighborhoodChannel() {
        return null;
    }

    /** The kind of topology this communicator carries. */
    Topology kind() {
        return Topology.NONE;
    }

    @Override
    public final Topology topology() {
        return withHandler(() -> {
            checkOpen();
            return kind();
        });
    }

    @Override
    public final CartesianCommunicator createCart(int[] dims, boolean[] periods, boolean reorder) {
        return withHandler(() -> {
            checkOpen();
            CartesianGrid grid = CartesianGrid.of(dims, periods, size());
            int rank = rank();
            Communicator part = implSplit(rank < grid.size() ? 0 : UNDEFINED, rank);
            return part == null ? null : inherited(new CartesianTopologyCommunicator(TopologyCommunicator.provided(part), null, grid));
        });
    }

    @Override
    public final DistGraphCommunicator createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
                                                               int[] destinationWeights, Info hints, boolean reorder) {
        return withHandler(() -> {
            checkOpen();
            DistGraphCommunicator.Neighbors edges = DistGraphEdges.adjacent(size(), sources, sourceWeights, destinations,
                    destinationWeights);
            return inherited(new DistGraphTopologyCommunicator(TopologyCommunicator.provided(implDup()), null, edges));
        });
    }

    @Override
    public final DistGraphCommunicator createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info hints,
                                                       boolean reorder) {
        return withHandler(() -> {
            checkOpen();
            DistGraphCommunicator.Neighbors edges = DistGraphEdges.gathered(this, sources, degrees, destinations, weights);
            return inherited(new DistGraphTopologyCommunicator(TopologyCommunicator.provided(implDup()), null, edges));
        });
    }

    /** {@code made} with this communicator's error handler, as MPI's constructors give it. */
    private <T extends TopologyCommunicator> T inherited(T made) {
        made.errors.set(errors.handler());
        return made;
    }

    private NeighborhoodCollectives neighbors(String call) {
        checkOpen();
        Neighborhood hood = neighborhood();
        if (hood == null) {
            throw new LockstepException(ErrorClass.TOPOLOGY, call + " needs a communicator with a topology (createCart,"
                    + " createDistGraph, createDistGraphAdjacent); this one has none");
        }
        Communicator channel = neighborhoodChannel();
        CollectiveEngine gridEngine = kind() == Topology.CARTESIAN && channel instanceof AbstractCommunicator own
                ? own.collectiveEngine() : null;
        return new NeighborhoodCollectives(channel, hood, gridEngine);
    }

    // ---- each neighbourhood collective once, blocking or started (recorded as CollectiveTemplates#collective says)

    private Request neighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                      Datatype recvType, boolean start) {
        return collective("neighbor_allgather", start, () -> sendType.byteLength(sendCount),
                () -> neighbors(start, "neighborAllgather").allgather(send, sendCount, sendType, recv, recvCount, recvType, start));
    }

    private Request neighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                       long[] displacements, Datatype recvType, boolean start) {
        return collective("neighbor_allgatherv", start, () -> sendType.byteLength(sendCount),
                () -> neighbors(start, "neighborAllgatherv").allgatherv(send, sendCount, sendType, recv, recvCounts, displacements,
                        recvType, start));
    }

    private Request neighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                     Datatype recvType, boolean start) {
        return collective("neighbor_alltoall", start, () -> recvType.byteLength(recvCount) * sourceCount(),
                () -> neighbors(start, "neighborAlltoall").alltoall(send, sendCount, sendType, recv, recvCount, recvType, start));
    }

    private Request neighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                      MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType, boolean start) {
        return collective("neighbor_alltoallv", start, () -> recvType.byteLength(sum(recvCounts)),
                () -> neighbors(start, "neighborAlltoallv").alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts,
                        recvDisplacements, recvType, start));
    }

    private Request neighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                      MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes,
                                      boolean start) {
        return collective("neighbor_alltoallw", start, () -> 0,
                () -> neighbors(start, "neighborAlltoallw").alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                        recvDisplacements, recvTypes, start));
    }

    /** The neighbourhood collectives of a call named {@code call} (with an i in front when started). */
    private NeighborhoodCollectives neighbors(boolean start, String call) {
        return neighbors(start ? "i" + call : call);
    }

    /** How many neighbours this rank receives from (0 without a topology: the call reports that). */
    private long sourceCount() {
        Neighborhood hood = neighborhood();
        return hood == null ? 0 : hood.sources().length;
    }

    @Override
    public final void neighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                        Datatype recvType) {
        neighborAllgather(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void neighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                         long[] displacements, Datatype recvType) {
        neighborAllgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, false);
    }

    @Override
    public final void neighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                       Datatype recvType) {
        neighborAlltoall(send, sendCount, sendType, recv, recvCount, recvType, false);
    }

    @Override
    public final void neighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                        MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        neighborAlltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType, false);
    }

    @Override
    public final void neighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                        MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        neighborAlltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes, false);
    }

    @Override
    public final Request ineighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                            Datatype recvType) {
        return neighborAllgather(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request ineighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                             long[] recvCounts, long[] displacements, Datatype recvType) {
        return neighborAllgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, true);
    }

    @Override
    public final Request ineighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                           Datatype recvType) {
        return neighborAlltoall(send, sendCount, sendType, recv, recvCount, recvType, true);
    }

    @Override
    public final Request ineighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return neighborAlltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType, true);
    }

    @Override
    public final Request ineighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return neighborAlltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes, true);
    }

    /** A persistent neighbourhood collective: checked for a topology now, each start runs the non-blocking form. */
    private PersistentRequest persistent(String what, Supplier<Request> start) {
        neighbors(what);
        return new PersistentOperation(what, () -> CollectiveRecording.persistentStart(start));
    }

    @Override
    public final PersistentRequest neighborAllgatherInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                         long recvCount, Datatype recvType) {
        return startedPersistent(() -> persistent("neighborAllgather", () -> ineighborAllgather(send, sendCount, sendType, recv,
                recvCount, recvType)));
    }

    @Override
    public final PersistentRequest neighborAllgathervInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                          long[] recvCounts, long[] displacements, Datatype recvType) {
        return startedPersistent(() -> persistent("neighborAllgatherv", () -> ineighborAllgatherv(send, sendCount, sendType, recv,
                recvCounts, displacements, recvType)));
    }

    @Override
    public final PersistentRequest neighborAlltoallInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                        long recvCount, Datatype recvType) {
        return startedPersistent(() -> persistent("neighborAlltoall", () -> ineighborAlltoall(send, sendCount, sendType, recv,
                recvCount, recvType)));
    }

    @Override
    public final PersistentRequest neighborAlltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                         Datatype sendType, MemorySegment recv, long[] recvCounts,
                                                         long[] recvDisplacements, Datatype recvType) {
        return startedPersistent(() -> persistent("neighborAlltoallv", () -> ineighborAlltoallv(send, sendCounts, sendDisplacements,
                sendType, recv, recvCounts, recvDisplacements, recvType)));
    }

    @Override
    public final PersistentRequest neighborAlltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                                                         Datatype[] sendTypes, MemorySegment recv, long[] recvCounts,
                                                         long[] recvDisplacements, Datatype[] recvTypes) {
        return startedPersistent(() -> persistent("neighborAlltoallw", () -> ineighborAlltoallw(send, sendCounts, sendDisplacements,
                sendTypes, recv, recvCounts, recvDisplacements, recvTypes)));
    }
}
