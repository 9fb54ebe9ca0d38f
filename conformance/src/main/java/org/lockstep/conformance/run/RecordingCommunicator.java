package org.lockstep.conformance.run;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.Group;
import org.lockstep.api.Info;
import org.lockstep.api.Keyval;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Message;
import org.lockstep.api.Op;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A rank's communicator as rule code sees it in a run. Every call is forwarded to the provider's
 * communicator and recorded (for hang reports: each rank's last operation). Blocking calls are
 * driven as their non-blocking forms completed by {@link Request#test()} — equivalent by MPI's
 * definition — so that the runner can stop a rank that would wait forever; rules that exercise a
 * provider's own blocking calls use {@link RankContext#raw()}.
 */
final class RecordingCommunicator implements Communicator {
    private static final String POLLING_IPROBE = "iprobe (polling)";
    private final Communicator raw;
    private final RankState rank;

    RecordingCommunicator(Communicator raw, RankState rank) {
        this.raw = raw;
        this.rank = rank;
    }

    /** Checkpoints are the provider's own: nothing in them blocks on another rank. */
    @Override
    public org.lockstep.api.Checkpoints checkpoints() {
        return raw.checkpoints();
    }

    Communicator raw() {
        return raw;
    }

    @Override
    public int rank() {
        return raw.rank();
    }

    @Override
    public int size() {
        return raw.size();
    }

    @Override
    public void send(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        startSend("send", buffer, count, type, dest, tag, false).await();
    }

    @Override
    public void ssend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        startSend("ssend", buffer, count, type, dest, tag, true).await();
    }

    @Override
    public Status recv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return start("recv", describe(count, type, "from", source, tag), () -> raw.irecv(buffer, count, type, source, tag)).await();
    }

    @Override
    public Request isend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend("isend", buffer, count, type, dest, tag, false);
    }

    @Override
    public Request issend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return startSend("issend", buffer, count, type, dest, tag, true);
    }

    @Override
    public Request irecv(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return start("irecv", describe(count, type, "from", source, tag), () -> raw.irecv(buffer, count, type, source, tag));
    }

    @Override
    public Status probe(int source, int tag) {
        RankState.Activity a = rank.begin("probe", "source " + source + ", tag " + tag, true);
        Waiting idle = new Waiting(rank);
        try {
            while (true) {
                Optional<Status> found = raw.iprobe(source, tag);
                if (found.isPresent()) {
                    rank.end(a, found.get().toString());
                    return found.get();
                }
                idle.idle();
            }
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    @Override
    public Optional<Status> iprobe(int source, int tag) {
        String detail = "source " + source + ", tag " + tag;
        RankState.Activity prior = rank.current;
        // a rank that keeps polling stays blocked in its first poll, also while inside the next one
        boolean stillPolling = prior != null && prior.operation().equals(POLLING_IPROBE) && prior.detail().equals(detail);
        RankState.Activity a = stillPolling ? prior : rank.begin("iprobe", detail, false);
        try {
            Optional<Status> found = raw.iprobe(source, tag);
            if (found.isPresent()) {
                rank.end(a, found.get().toString());
            } else {
                rank.polling(POLLING_IPROBE, detail);
            }
            return found;
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    /** Windows are the provider's own: their calls block on the raw communicator's ranks. */
    @Override
    public org.lockstep.api.Window allocateWindow(long byteSize, int dispUnit, Info hints) {
        return raw.allocateWindow(byteSize, dispUnit, hints);
    }

    @Override
    public org.lockstep.api.Window allocateSharedWindow(long byteSize, int dispUnit, Info hints) {
        return raw.allocateSharedWindow(byteSize, dispUnit, hints);
    }

    @Override
    public org.lockstep.api.Window createWindow(MemorySegment base, int dispUnit, Info hints) {
        return raw.createWindow(base, dispUnit, hints);
    }

    @Override
    public MemorySegment allocate(long byteSize) {
        return raw.allocate(byteSize);
    }

    @Override
    public void free(MemorySegment segment) {
        raw.free(segment);
    }

    @Override
    public void close() {
        RankState.Activity a = rank.begin("close", "", false);
        raw.close();
        rank.end(a, "closed");
    }

    // ---- communicators and collectives: forwarded and recorded (they wait for the other ranks) ----

    private <T> T collective(String operation, String detail, java.util.function.Supplier<T> call) {
        rank.checkAborted();
        RankState.Activity a = rank.begin(operation, detail, true);
        try {
            T result = call.get();
            rank.end(a, "done");
            return result;
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    private void collective(String operation, String detail, Runnable call) {
        collective(operation, detail, () -> {
            call.run();
            return null;
        });
    }

    /**
     * The intercommunicator is the provider's own (its calls are not recorded); {@code peer}, one of
     * the kit's communicators, reaches the provider as the communicator it wraps.
     */
    @Override
    public org.lockstep.api.Intercommunicator createIntercommunicator(int localLeader, Communicator peer, int remoteLeader, int tag) {
        Communicator rawPeer = peer instanceof RecordingCommunicator r ? r.raw : peer;
        return collective("createIntercommunicator", "leader " + localLeader + ", remote leader " + remoteLeader + ", tag " + tag,
                () -> raw.createIntercommunicator(localLeader, rawPeer, remoteLeader, tag));
    }

    @Override
    public <T> void setAttribute(Keyval<T> key, T value) {
        raw.setAttribute(key, value);
    }

    @Override
    public <T> Optional<T> attribute(Keyval<T> key) {
        return raw.attribute(key);
    }

    @Override
    public void deleteAttribute(Keyval<?> key) {
        raw.deleteAttribute(key);
    }

    @Override
    public Communicator dup() {
        Supplier<Communicator> dup = raw::dup;
        return new RecordingCommunicator(collective("dup", "", dup), rank);
    }

    @Override
    public Communicator dup(Info hints) {
        Supplier<Communicator> dup = () -> raw.dup(hints);
        return new RecordingCommunicator(collective("dup", "with hints " + hints, dup), rank);
    }

    @Override
    public void setErrorHandler(ErrorHandler handler) {
        raw.setErrorHandler(handler);
    }

    @Override
    public ErrorHandler errorHandler() {
        return raw.errorHandler();
    }

    @Override
    public void callErrorHandler(LockstepException error) {
        raw.callErrorHandler(error);
    }

    @Override
    public void setInfo(Info hints) {
        raw.setInfo(hints);
    }

    @Override
    public Info info() {
        return raw.info();
    }

    @Override
    public Communicator split(int color, int key) {
        Communicator part = collective("split", "color " + color + ", key " + key, () -> raw.split(color, key));
        return part == null ? null : new RecordingCommunicator(part, rank);
    }

    @Override
    public Group group() {
        return raw.group();
    }

    @Override
    public Group.Comparison compare(Communicator other) {
        return raw.compare(other instanceof RecordingCommunicator r ? r.raw : other);
    }

    @Override
    public Communicator create(Group group) {
        Communicator made = collective("create", group.toString(), () -> raw.create(group));
        return made == null ? null : new RecordingCommunicator(made, rank);
    }

    @Override
    public Communicator createGroup(Group group, int tag) {
        Communicator made = collective("createGroup", group + ", tag " + tag, () -> raw.createGroup(group, tag));
        return made == null ? null : new RecordingCommunicator(made, rank);
    }

    @Override
    public Communicator splitType(SplitType type, int key) {
        Communicator part = collective("splitType", type + ", key " + key, () -> raw.splitType(type, key));
        return part == null ? null : new RecordingCommunicator(part, rank);
    }

    @Override
    public CommunicatorRequest idup() {
        return recordedIdup("", raw::idup);
    }

    @Override
    public CommunicatorRequest idup(Info hints) {
        return recordedIdup("with hints " + hints, () -> raw.idup(hints));
    }

    /** An idup's request, recorded; its communicator is recorded too. */
    private CommunicatorRequest recordedIdup(String detail, Supplier<CommunicatorRequest> idup) {
        RecordingRequest r = start("idup", detail, idup::get);
        CommunicatorRequest made = (CommunicatorRequest) r.unwrap();
        return new CommunicatorRequest() {
            @Override
            public Communicator communicator() {
                return new RecordingCommunicator(made.communicator(), rank);
            }

            @Override
            public Status await() {
                return r.await();
            }

            @Override
            public Optional<Status> test() {
                return r.test();
            }

            @Override
            public boolean isComplete() {
                return r.isComplete();
            }

            @Override
            public void cancel() {
                r.cancel();
            }
        };
    }

    @Override
    public void setName(String name) {
        raw.setName(name);
    }

    @Override
    public String name() {
        return raw.name();
    }

    @Override
    public void barrier() {
        collective("barrier", "", raw::barrier);
    }

    @Override
    public void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        collective("bcast", count + " x " + type + " from " + root, () -> raw.bcast(buffer, count, type, root));
    }

    @Override
    public void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        collective("gather", count + " x " + type + " to " + root, () -> raw.gather(send, count, type, recv, root));
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                        long[] displacements, int root) {
        collective("gatherv", sendCount + " x " + type + " to " + root,
                () -> raw.gatherv(send, sendCount, type, recv, recvCounts, displacements, root));
    }

    @Override
    public void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        collective("scatter", count + " x " + type + " from " + root, () -> raw.scatter(send, count, type, recv, root));
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                         long recvCount, int root) {
        collective("scatterv", recvCount + " x " + type + " from " + root,
                () -> raw.scatterv(send, sendCounts, displacements, type, recv, recvCount, root));
    }

    @Override
    public void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        collective("allgather", count + " x " + type, () -> raw.allgather(send, count, type, recv));
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                           long[] displacements) {
        collective("allgatherv", sendCount + " x " + type, () -> raw.allgatherv(send, sendCount, type, recv, recvCounts, displacements));
    }

    @Override
    public void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        collective("alltoall", count + " x " + type, () -> raw.alltoall(send, count, type, recv));
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements) {
        collective("alltoallv", type.toString(),
                () -> raw.alltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements));
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        collective("reduce", count + " x " + type + " " + op + " to " + root, () -> raw.reduce(send, recv, count, type, op, root));
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        collective("allreduce", count + " x " + type + " " + op, () -> raw.allreduce(send, recv, count, type, op));
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        collective("reduceScatter", type + " " + op, () -> raw.reduceScatter(send, recv, recvCounts, type, op));
    }

    @Override
    public void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        collective("reduceScatterBlock", recvCount + " x " + type + " " + op, () -> raw.reduceScatterBlock(send, recv, recvCount, type, op));
    }

    @Override
    public void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        collective("scan", count + " x " + type + " " + op, () -> raw.scan(send, recv, count, type, op));
    }

    @Override
    public void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        collective("exscan", count + " x " + type + " " + op, () -> raw.exscan(send, recv, count, type, op));
    }

    @Override
    public Request ibarrier() {
        return start("ibarrier", "", raw::ibarrier);
    }

    @Override
    public Request ibcast(MemorySegment buffer, long count, Datatype type, int root) {
        return start("ibcast", count + " x " + type + " from " + root, () -> raw.ibcast(buffer, count, type, root));
    }

    @Override
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return start("iallreduce", count + " x " + type + " " + op, () -> raw.iallreduce(send, recv, count, type, op));
    }

    @Override
    public void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                          MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        collective("alltoallw", "", () -> raw.alltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes));
    }

    // Topology communicators are the provider's own: their calls are not recorded, their making is.

    @Override
    public org.lockstep.api.Topology topology() {
        return raw.topology();
    }

    @Override
    public org.lockstep.api.CartesianCommunicator createCart(int[] dims, boolean[] periods, boolean reorder) {
        return collective("createCart", java.util.Arrays.toString(dims), () -> raw.createCart(dims, periods, reorder));
    }

    @Override
    public org.lockstep.api.DistGraphCommunicator createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations,
                                                                          int[] destinationWeights, Info hints, boolean reorder) {
        return collective("createDistGraphAdjacent", "", () -> raw.createDistGraphAdjacent(sources, sourceWeights, destinations,
                destinationWeights, hints, reorder));
    }

    @Override
    public org.lockstep.api.DistGraphCommunicator createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights,
                                                                  Info hints, boolean reorder) {
        return collective("createDistGraph", "", () -> raw.createDistGraph(sources, degrees, destinations, weights, hints, reorder));
    }

    @Override
    public void neighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                  Datatype recvType) {
        collective("neighborAllgather", "", () -> raw.neighborAllgather(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public void neighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                   long[] displacements, Datatype recvType) {
        collective("neighborAllgatherv", "", () -> raw.neighborAllgatherv(send, sendCount, sendType, recv, recvCounts, displacements,
                recvType));
    }

    @Override
    public void neighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                 Datatype recvType) {
        collective("neighborAlltoall", "", () -> raw.neighborAlltoall(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public void neighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                  MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        collective("neighborAlltoallv", "", () -> raw.neighborAlltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts,
                recvDisplacements, recvType));
    }

    @Override
    public void neighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                  MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        collective("neighborAlltoallw", "", () -> raw.neighborAlltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes));
    }

    @Override
    public Request ineighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                      Datatype recvType) {
        return start("ineighborAllgather", "", () -> raw.ineighborAllgather(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public Request ineighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                       long[] displacements, Datatype recvType) {
        return start("ineighborAllgatherv", "", () -> raw.ineighborAllgatherv(send, sendCount, sendType, recv, recvCounts, displacements,
                recvType));
    }

    @Override
    public Request ineighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                     Datatype recvType) {
        return start("ineighborAlltoall", "", () -> raw.ineighborAlltoall(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public Request ineighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                      MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return start("ineighborAlltoallv", "", () -> raw.ineighborAlltoallv(send, sendCounts, sendDisplacements, sendType, recv,
                recvCounts, recvDisplacements, recvType));
    }

    @Override
    public Request ineighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                      MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return start("ineighborAlltoallw", "", () -> raw.ineighborAlltoallw(send, sendCounts, sendDisplacements, sendTypes, recv,
                recvCounts, recvDisplacements, recvTypes));
    }

    @Override
    public PersistentRequest neighborAllgatherInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                   long recvCount, Datatype recvType) {
        return raw.neighborAllgatherInit(send, sendCount, sendType, recv, recvCount, recvType);
    }

    @Override
    public PersistentRequest neighborAllgathervInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                    long[] recvCounts, long[] displacements, Datatype recvType) {
        return raw.neighborAllgathervInit(send, sendCount, sendType, recv, recvCounts, displacements, recvType);
    }

    @Override
    public PersistentRequest neighborAlltoallInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv,
                                                  long recvCount, Datatype recvType) {
        return raw.neighborAlltoallInit(send, sendCount, sendType, recv, recvCount, recvType);
    }

    @Override
    public PersistentRequest neighborAlltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return raw.neighborAlltoallvInit(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType);
    }

    @Override
    public PersistentRequest neighborAlltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return raw.neighborAlltoallwInit(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes);
    }

    @Override
    public Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return start("igather", count + " x " + type + " to " + root, () -> raw.igather(send, count, type, recv, root));
    }

    @Override
    public Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                            long[] displacements, int root) {
        return start("igatherv", sendCount + " x " + type + " to " + root,
                () -> raw.igatherv(send, sendCount, type, recv, recvCounts, displacements, root));
    }

    @Override
    public Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return start("iscatter", count + " x " + type + " from " + root, () -> raw.iscatter(send, count, type, recv, root));
    }

    @Override
    public Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                             long recvCount, int root) {
        return start("iscatterv", recvCount + " x " + type + " from " + root,
                () -> raw.iscatterv(send, sendCounts, displacements, type, recv, recvCount, root));
    }

    @Override
    public Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return start("iallgather", count + " x " + type, () -> raw.iallgather(send, count, type, recv));
    }

    @Override
    public Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                               long[] displacements) {
        return start("iallgatherv", sendCount + " x " + type,
                () -> raw.iallgatherv(send, sendCount, type, recv, recvCounts, displacements));
    }

    @Override
    public Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return start("ialltoall", count + " x " + type, () -> raw.ialltoall(send, count, type, recv));
    }

    @Override
    public Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                              MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return start("ialltoallv", type.toString(),
                () -> raw.ialltoallv(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements));
    }

    @Override
    public Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                              MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return start("ialltoallw", "", () -> raw.ialltoallw(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts,
                recvDisplacements, recvTypes));
    }

    @Override
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return start("ireduce", count + " x " + type + " " + op + " to " + root, () -> raw.ireduce(send, recv, count, type, op, root));
    }

    @Override
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return start("ireduceScatter", type + " " + op, () -> raw.ireduceScatter(send, recv, recvCounts, type, op));
    }

    @Override
    public Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return start("ireduceScatterBlock", recvCount + " x " + type + " " + op,
                () -> raw.ireduceScatterBlock(send, recv, recvCount, type, op));
    }

    @Override
    public Request iscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return start("iscan", count + " x " + type + " " + op, () -> raw.iscan(send, recv, count, type, op));
    }

    @Override
    public Request iexscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return start("iexscan", count + " x " + type + " " + op, () -> raw.iexscan(send, recv, count, type, op));
    }

    // ---- the general collective forms

    @Override
    public void gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                       int root) {
        collective("gather", sendCount + " x " + sendType + " to " + root,
                () -> raw.gather(send, sendCount, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                        long[] displacements, Datatype recvType, int root) {
        collective("gatherv", sendCount + " x " + sendType + " to " + root,
                () -> raw.gatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root));
    }

    @Override
    public void scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType,
                        int root) {
        collective("scatter", recvCount + " x " + recvType + " from " + root,
                () -> raw.scatter(send, sendCount, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                         long recvCount, Datatype recvType, int root) {
        collective("scatterv", recvCount + " x " + recvType + " from " + root,
                () -> raw.scatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public void allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                          Datatype recvType) {
        collective("allgather", sendCount + " x " + sendType, () -> raw.allgather(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                           long[] displacements, Datatype recvType) {
        collective("allgatherv", sendCount + " x " + sendType,
                () -> raw.allgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType));
    }

    @Override
    public void alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                         Datatype recvType) {
        collective("alltoall", sendCount + " x " + sendType, () -> raw.alltoall(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType, MemorySegment recv,
                          long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        collective("alltoallv", sendType + " to " + recvType,
                () -> raw.alltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType));
    }

    @Override
    public Request igather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                           Datatype recvType, int root) {
        return start("igather", sendCount + " x " + sendType + " to " + root,
                () -> raw.igather(send, sendCount, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public Request igatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                            long[] displacements, Datatype recvType, int root) {
        return start("igatherv", sendCount + " x " + sendType + " to " + root,
                () -> raw.igatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType, root));
    }

    @Override
    public Request iscatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                            Datatype recvType, int root) {
        return start("iscatter", recvCount + " x " + recvType + " from " + root,
                () -> raw.iscatter(send, sendCount, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                             long recvCount, Datatype recvType, int root) {
        return start("iscatterv", recvCount + " x " + recvType + " from " + root,
                () -> raw.iscatterv(send, sendCounts, displacements, sendType, recv, recvCount, recvType, root));
    }

    @Override
    public Request iallgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                              Datatype recvType) {
        return start("iallgather", sendCount + " x " + sendType,
                () -> raw.iallgather(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public Request iallgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                               long[] displacements, Datatype recvType) {
        return start("iallgatherv", sendCount + " x " + sendType,
                () -> raw.iallgatherv(send, sendCount, sendType, recv, recvCounts, displacements, recvType));
    }

    @Override
    public Request ialltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                             Datatype recvType) {
        return start("ialltoall", sendCount + " x " + sendType,
                () -> raw.ialltoall(send, sendCount, sendType, recv, recvCount, recvType));
    }

    @Override
    public Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                              MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType) {
        return start("ialltoallv", sendType + " to " + recvType,
                () -> raw.ialltoallv(send, sendCounts, sendDisplacements, sendType, recv, recvCounts, recvDisplacements, recvType));
    }

    // ---- more point-to-point: modes, buffered sends, matched probes (recorded like the others)

    @Override
    public void rsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        start("rsend", describe(count, type, "to", dest, tag), () -> raw.irsend(buffer, count, type, dest, tag)).await();
    }

    @Override
    public Request irsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return start("irsend", describe(count, type, "to", dest, tag), () -> raw.irsend(buffer, count, type, dest, tag));
    }

    @Override
    public void bsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        start("bsend", describe(count, type, "to", dest, tag), () -> raw.ibsend(buffer, count, type, dest, tag)).await();
    }

    @Override
    public Request ibsend(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return start("ibsend", describe(count, type, "to", dest, tag), () -> raw.ibsend(buffer, count, type, dest, tag));
    }

    @Override
    public void attachBuffer(MemorySegment buffer) {
        raw.attachBuffer(buffer);
    }

    @Override
    public MemorySegment detachBuffer() {
        return collective("detachBuffer", "", raw::detachBuffer);
    }

    @Override
    public Status sendrecvReplace(MemorySegment buffer, long count, Datatype type, int dest, int sendTag, int source, int recvTag) {
        return collective("sendrecvReplace", describe(count, type, "to", dest, sendTag) + ", from " + peerName(source),
                () -> raw.sendrecvReplace(buffer, count, type, dest, sendTag, source, recvTag));
    }

    @Override
    public Message mprobe(int source, int tag) {
        RankState.Activity a = rank.begin("mprobe", "source " + source + ", tag " + tag, true);
        Waiting idle = new Waiting(rank);
        try {
            while (true) {
                Optional<Message> found = raw.improbe(source, tag);
                if (found.isPresent()) {
                    rank.end(a, found.get().toString());
                    return found.get();
                }
                idle.idle();
            }
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
    }

    @Override
    public Optional<Message> improbe(int source, int tag) {
        return raw.improbe(source, tag);
    }

    @Override
    public Status mrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        return start("mrecv", count + " x " + type, () -> raw.imrecv(buffer, count, type, message)).await();
    }

    @Override
    public Request imrecv(MemorySegment buffer, long count, Datatype type, Message message) {
        return start("imrecv", count + " x " + type, () -> raw.imrecv(buffer, count, type, message));
    }

    // ---- persistent and partitioned operations: made by the provider, waited on through it

    @Override
    public PersistentRequest sendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return raw.sendInit(buffer, count, type, dest, tag);
    }

    @Override
    public PersistentRequest ssendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return raw.ssendInit(buffer, count, type, dest, tag);
    }

    @Override
    public PersistentRequest bsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return raw.bsendInit(buffer, count, type, dest, tag);
    }

    @Override
    public PersistentRequest rsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        return raw.rsendInit(buffer, count, type, dest, tag);
    }

    @Override
    public PersistentRequest recvInit(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        return raw.recvInit(buffer, count, type, source, tag);
    }

    @Override
    public PartitionedRequest psendInit(MemorySegment buffer, int partitions, long count, Datatype type, int dest, int tag) {
        return raw.psendInit(buffer, partitions, count, type, dest, tag);
    }

    @Override
    public PartitionedRequest precvInit(MemorySegment buffer, int partitions, long count, Datatype type, int source, int tag) {
        return raw.precvInit(buffer, partitions, count, type, source, tag);
    }

    @Override
    public PersistentRequest barrierInit() {
        return raw.barrierInit();
    }

    @Override
    public PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root) {
        return raw.bcastInit(buffer, count, type, root);
    }

    @Override
    public PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return raw.gatherInit(send, count, type, recv, root);
    }

    @Override
    public PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                         long[] displacements, int root) {
        return raw.gathervInit(send, sendCount, type, recv, recvCounts, displacements, root);
    }

    @Override
    public PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return raw.scatterInit(send, count, type, recv, root);
    }

    @Override
    public PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                          MemorySegment recv, long recvCount, int root) {
        return raw.scattervInit(send, sendCounts, displacements, type, recv, recvCount, root);
    }

    @Override
    public PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return raw.allgatherInit(send, count, type, recv);
    }

    @Override
    public PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                            long[] recvCounts, long[] displacements) {
        return raw.allgathervInit(send, sendCount, type, recv, recvCounts, displacements);
    }

    @Override
    public PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return raw.alltoallInit(send, count, type, recv);
    }

    @Override
    public PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                           MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return raw.alltoallvInit(send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements);
    }

    @Override
    public PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                           MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        return raw.alltoallwInit(send, sendCounts, sendDisplacements, sendTypes, recv, recvCounts, recvDisplacements, recvTypes);
    }

    @Override
    public PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        return raw.reduceInit(send, recv, count, type, op, root);
    }

    @Override
    public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return raw.allreduceInit(send, recv, count, type, op);
    }

    @Override
    public PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        return raw.reduceScatterInit(send, recv, recvCounts, type, op);
    }

    @Override
    public PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        return raw.reduceScatterBlockInit(send, recv, recvCount, type, op);
    }

    @Override
    public PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return raw.scanInit(send, recv, count, type, op);
    }

    @Override
    public PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return raw.exscanInit(send, recv, count, type, op);
    }

    private Request startSend(String operation, MemorySegment buffer, long count, Datatype type, int dest, int tag,
                              boolean synchronous) {
        return start(operation, describe(count, type, "to", dest, tag), synchronous
                ? () -> raw.issend(buffer, count, type, dest, tag)
                : () -> raw.isend(buffer, count, type, dest, tag));
    }

    private RecordingRequest start(String operation, String detail, java.util.function.Supplier<Request> call) {
        rank.checkAborted();
        RankState.Activity a = rank.begin(operation, detail, false);
        Request r;
        try {
            r = call.get();
        } catch (LockstepException e) {
            rank.end(a, "threw " + e.getMessage());
            throw e;
        }
        if (r == null) {
            rank.end(a, "returned null");
            throw new LockstepException(org.lockstep.api.ErrorClass.INTERN, operation + " returned no request");
        }
        rank.current = null;
        return new RecordingRequest(r, rank, a);
    }

    private static String describe(long count, Datatype type, String direction, int peer, int tag) {
        return count + " x " + type + " " + direction + " " + peerName(peer) + ", tag " + (tag == ANY_TAG ? "ANY_TAG" : Integer.toString(tag));
    }

    private static String peerName(int peer) {
        return switch (peer) {
            case ANY_SOURCE -> "ANY_SOURCE";
            case PROC_NULL -> "PROC_NULL";
            default -> "rank " + peer;
        };
    }
}
