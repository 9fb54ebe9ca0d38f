package org.lockstep.api;

import java.lang.foreign.MemorySegment;

/**
 * Two disjoint groups of ranks joined for communication between them (an MPI intercommunicator,
 * MPI 4.1 §7.6): made by {@link Communicator#createIntercommunicator}. Each rank belongs to the
 * <em>local</em> group; point-to-point destinations and sources ({@link PointToPoint}) are ranks
 * of the <em>remote</em> group, and statuses name remote ranks.
 *
 * <p>Collectives follow MPI's intercommunicator rules (MPI 4.1 §6.2.2): data flows from one group
 * to the other. In a rooted collective the root passes {@link #ROOT}, the other ranks of its group
 * {@link Communicator#PROC_NULL}, and every rank of the other group passes the root's rank in the
 * root's group. {@link #allgather} gives each rank the blocks of the remote group, {@link #allreduce}
 * the reduction of the remote group's contributions, {@link #alltoall} sends block {@code j} to remote
 * rank {@code j}.
 *
 * <p>An intercommunicator belongs to one rank and may be used from one thread at a time, like a
 * {@link Communicator}. Errors are {@link LockstepException}s; once closed, every call fails with
 * {@link ErrorClass#COMM}.
 */
public interface Intercommunicator extends PointToPoint, AutoCloseable {
    /** The root argument of a rooted collective at the root itself ({@code MPI_ROOT}). */
    int ROOT = -3;

    /** This rank's number in the local group. */
    int rank();

    /** Size of the local group ({@code MPI_Comm_size} on an intercommunicator). */
    int size();

    /** Size of the remote group ({@code MPI_Comm_remote_size}). */
    int remoteSize();

    /** The local group ({@code MPI_Comm_group}). */
    Group group();

    /** The remote group ({@code MPI_Comm_remote_group}). */
    Group remoteGroup();

    // ---- collectives across the two groups (MPI 4.1 §6.2.2); counts are element counts of the datatype

    /** Returns once every rank of the remote group has called it ({@code MPI_Barrier}). */
    void barrier();

    /** The root's {@code count} elements reach every rank of the other group ({@code MPI_Bcast}). */
    void bcast(MemorySegment buffer, long count, Datatype type, int root);

    /** The root receives {@code count} elements from each rank of the other group, in rank order ({@code MPI_Gather}). */
    void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** Rank i of the other group receives the root's i-th block of {@code count} elements ({@code MPI_Scatter}). */
    void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** Every rank receives {@code count} elements from each remote rank, in remote rank order ({@code MPI_Allgather}). */
    void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** Block j of the send buffer goes to remote rank j; block i of the receive buffer comes from remote rank i ({@code MPI_Alltoall}). */
    void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** The root receives the reduction, in rank order, of the other group's contributions ({@code MPI_Reduce}). */
    void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    /** Every rank receives the reduction, in rank order, of the remote group's contributions ({@code MPI_Allreduce}). */
    void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    // ---- the vector forms and reduce_scatter across the two groups (MPI 4.1 §6.2.2); no IN_PLACE across groups

    /**
     * The root receives {@code recvCounts[j]} elements from remote rank j at element displacement
     * {@code displacements[j]} (both indexed by the other group's ranks; only the root's count);
     * every rank of the other group sends {@code sendCount} ({@code MPI_Gatherv}).
     */
    void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements,
                 int root);

    /**
     * Remote rank j receives, as {@code recvCount} elements, the root's {@code sendCounts[j]} elements at
     * element displacement {@code displacements[j]} ({@code MPI_Scatterv}).
     */
    void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount,
                  int root);

    /**
     * Every rank sends {@code sendCount} elements to each remote rank and receives {@code recvCounts[j]}
     * elements from remote rank j at element displacement {@code displacements[j]} ({@code MPI_Allgatherv}).
     */
    void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements);

    /** As {@link #alltoall} with per-remote-rank counts and element displacements ({@code MPI_Alltoallv}). */
    void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                   long[] recvCounts, long[] recvDisplacements);

    /** As {@link #alltoallv} with a datatype per remote rank and byte displacements ({@code MPI_Alltoallw}). */
    void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                   long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /**
     * Local rank i receives {@code recvCounts[i]} elements of the reduction, in rank order, of the
     * remote group's vectors; every rank's vector holds the sum of its group's {@code recvCounts}
     * elements, and that sum must be the same in both groups ({@code MPI_Reduce_scatter}).
     */
    void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    /** As {@link #reduceScatter} with {@code recvCount} elements for every local rank ({@code MPI_Reduce_scatter_block}). */
    void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    // ---- non-blocking collectives (MPI 4.1 §6.12): the same data flow as the blocking ones, started now,
    // complete when the request is; both groups start them in the same order. Each posts its messages
    // directly between the ranks that trade data (no step inside a group).

    /** As {@link #barrier()}, started ({@code MPI_Ibarrier}): complete once every remote rank has started it. */
    Request ibarrier();

    /** As {@link #bcast}, started ({@code MPI_Ibcast}). */
    Request ibcast(MemorySegment buffer, long count, Datatype type, int root);

    /** As {@link #gather}, started ({@code MPI_Igather}). */
    Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #gatherv}, started ({@code MPI_Igatherv}). */
    Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements,
                     int root);

    /** As {@link #scatter}, started ({@code MPI_Iscatter}). */
    Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #scatterv}, started ({@code MPI_Iscatterv}). */
    Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount,
                      int root);

    /** As {@link #allgather}, started ({@code MPI_Iallgather}). */
    Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #allgatherv}, started ({@code MPI_Iallgatherv}). */
    Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements);

    /** As {@link #alltoall}, started ({@code MPI_Ialltoall}). */
    Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #alltoallv}, started ({@code MPI_Ialltoallv}). */
    Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                       long[] recvCounts, long[] recvDisplacements);

    /** As {@link #alltoallw}, started ({@code MPI_Ialltoallw}). */
    Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                       long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** As {@link #reduce}, started ({@code MPI_Ireduce}). */
    Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    /** As {@link #allreduce}, started ({@code MPI_Iallreduce}). */
    Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** As {@link #reduceScatter}, started ({@code MPI_Ireduce_scatter}). */
    Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    /** As {@link #reduceScatterBlock}, started ({@code MPI_Ireduce_scatter_block}). */
    Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    // ---- persistent collectives (MPI 4.0 §6.13): each start runs the non-blocking form with the
    // arguments given here; both groups make and start them in the same order.

    /** As {@link #ibarrier}, made persistent ({@code MPI_Barrier_init}). */
    PersistentRequest barrierInit();

    /** As {@link #ibcast}, made persistent ({@code MPI_Bcast_init}). */
    PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root);

    /** As {@link #igather}, made persistent ({@code MPI_Gather_init}). */
    PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #igatherv}, made persistent ({@code MPI_Gatherv_init}). */
    PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, int root);

    /** As {@link #iscatter}, made persistent ({@code MPI_Scatter_init}). */
    PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #iscatterv}, made persistent ({@code MPI_Scatterv_init}). */
    PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                                   MemorySegment recv, long recvCount, int root);

    /** As {@link #iallgather}, made persistent ({@code MPI_Allgather_init}). */
    PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #iallgatherv}, made persistent ({@code MPI_Allgatherv_init}). */
    PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                                     long[] recvCounts, long[] displacements);

    /** As {@link #ialltoall}, made persistent ({@code MPI_Alltoall_init}). */
    PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #ialltoallv}, made persistent ({@code MPI_Alltoallv_init}). */
    PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements);

    /** As {@link #ialltoallw}, made persistent ({@code MPI_Alltoallw_init}). */
    PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** As {@link #ireduce}, made persistent ({@code MPI_Reduce_init}). */
    PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    /** As {@link #iallreduce}, made persistent ({@code MPI_Allreduce_init}). */
    PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** As {@link #ireduceScatter}, made persistent ({@code MPI_Reduce_scatter_init}). */
    PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    /** As {@link #ireduceScatterBlock}, made persistent ({@code MPI_Reduce_scatter_block_init}). */
    PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    // ---- constructors

    /** An intercommunicator of the same two groups on new contexts ({@code MPI_Comm_dup}); collective over both groups. */
    Intercommunicator dup();

    /**
     * The intracommunicator of both groups ({@code MPI_Intercomm_merge}); collective over both groups.
     * The group whose ranks pass {@code high = false} comes first; if both pass the same value, the
     * group that made the intercommunicator with the lower world rank of its rank 0 comes first.
     * Every rank of one group must pass the same value.
     */
    Communicator merge(boolean high);

    /** Ends this rank's use of the intercommunicator; later calls fail with {@link ErrorClass#COMM}. */
    @Override
    void close();
}
