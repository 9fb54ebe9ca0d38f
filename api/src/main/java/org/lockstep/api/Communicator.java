package org.lockstep.api;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A group of ranks that exchange messages in a private context ({@code MPI_Comm}).
 *
 * <p>Buffers are {@link MemorySegment}s, heap or off-heap; counts are element counts of a
 * {@link Datatype}. Array overloads wrap the array as a heap segment. Point-to-point semantics
 * are MPI's (MPI 4.1 chapter 3): messages between one pair of ranks on one communicator do not
 * overtake each other; a receive matches on source and tag, either of which may be a wildcard; a
 * message longer than the receive buffer fills the buffer and completes the receive with
 * {@link ErrorClass#TRUNCATE}.
 *
 * <p>Errors are {@link LockstepException}s with an {@link ErrorClass}; a bad argument is
 * rejected before anything is sent, so the communicator stays usable.
 *
 * <p>A communicator belongs to one rank. Its methods may be called from one thread at a time
 * (MPI's {@code MPI_THREAD_SERIALIZED}).
 */
public interface Communicator extends PointToPoint, AutoCloseable {
    /** Wildcard source of a receive or probe ({@code MPI_ANY_SOURCE}). */
    int ANY_SOURCE = -1;
    /** Wildcard tag of a receive or probe ({@code MPI_ANY_TAG}). */
    int ANY_TAG = -1;
    /** The null process: sends to it and receives from it complete at once ({@code MPI_PROC_NULL}). */
    int PROC_NULL = -2;
    /** The largest valid tag ({@code MPI_TAG_UB}). */
    int TAG_UB = Integer.MAX_VALUE;
    /** The color of {@link #split} for ranks that join no new communicator ({@code MPI_UNDEFINED}). */
    int UNDEFINED = -32766;
    /**
     * Marks the send buffer of a collective as "in place" ({@code MPI_IN_PLACE}): the input is
     * taken from, and the result left in, the receive buffer. Compared by identity.
     */
    MemorySegment IN_PLACE = InPlace.SEGMENT;

    /** This rank's number in {@code [0, size())}. */
    int rank();

    /** Number of ranks in the communicator. */
    int size();

    /**
     * Ready-mode send ({@code MPI_Rsend}): the program promises the matching receive is already
     * posted. Lockstep does not need the promise: it sends as {@link #send} does.
     */
    void rsend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** Non-blocking {@link #rsend} ({@code MPI_Irsend}). */
    Request irsend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /**
     * Buffered send ({@code MPI_Bsend}): copies the message into the buffer attached with
     * {@link #attachBuffer} and returns; the copy is sent from there.
     *
     * @throws LockstepException {@link ErrorClass#BUFFER} if no buffer is attached or it has no room
     *         for the message (after what earlier buffered sends have finished with)
     */
    void bsend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** Non-blocking {@link #bsend} ({@code MPI_Ibsend}): complete once the message is copied, i.e. at once. */
    Request ibsend(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /**
     * Gives this communicator memory for buffered sends ({@code MPI_Comm_attach_buffer}, MPI 4.1).
     * Lockstep keeps its bookkeeping outside the buffer ({@link #BSEND_OVERHEAD} is 0).
     *
     * @throws LockstepException {@link ErrorClass#BUFFER} if a buffer is attached already
     */
    void attachBuffer(MemorySegment buffer);

    /**
     * Waits until every buffered send has left the attached buffer, detaches it and returns it
     * ({@code MPI_Comm_detach_buffer}); {@code null} if none was attached.
     */
    MemorySegment detachBuffer();

    /** Bytes a buffered send needs in the attached buffer beyond its data ({@code MPI_BSEND_OVERHEAD}). */
    int BSEND_OVERHEAD = 0;

    /**
     * Sends {@code count} elements of {@code buffer} and receives into the same buffer
     * ({@code MPI_Sendrecv_replace}); the message received may not be longer than the one sent.
     */
    Status sendrecvReplace(MemorySegment buffer, long count, Datatype type, int dest, int sendTag, int source, int recvTag);

    /**
     * Blocks until a matching message is available and takes it out of matching ({@code MPI_Mprobe});
     * receive it with {@link #mrecv} or {@link #imrecv}. For {@link #PROC_NULL} returns {@link Message#NO_PROC}.
     */
    Message mprobe(int source, int tag);

    /** A matching message taken out of matching if one is available now ({@code MPI_Improbe}). */
    Optional<Message> improbe(int source, int tag);

    /**
     * Receives a message from {@link #mprobe} or {@link #improbe} ({@code MPI_Mrecv}).
     *
     * @throws TruncationException if it is longer than {@code count} elements (the buffer holds the first part)
     * @throws LockstepException {@link ErrorClass#REQUEST} if the message was received already or
     *         was not matched on this communicator
     */
    Status mrecv(MemorySegment buffer, long count, Datatype type, Message message);

    /** Non-blocking {@link #mrecv} ({@code MPI_Imrecv}). */
    Request imrecv(MemorySegment buffer, long count, Datatype type, Message message);

    // ---- persistent point-to-point (MPI 4.1 §3.9) and partitioned (MPI 4.1 §4) ----

    /** A persistent standard-mode send ({@code MPI_Send_init}); the buffer is read at each start. */
    PersistentRequest sendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** A persistent synchronous send ({@code MPI_Ssend_init}). */
    PersistentRequest ssendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** A persistent buffered send ({@code MPI_Bsend_init}). */
    PersistentRequest bsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** A persistent ready-mode send ({@code MPI_Rsend_init}). */
    PersistentRequest rsendInit(MemorySegment buffer, long count, Datatype type, int dest, int tag);

    /** A persistent receive ({@code MPI_Recv_init}). */
    PersistentRequest recvInit(MemorySegment buffer, long count, Datatype type, int source, int tag);

    /**
     * A partitioned send of {@code partitions} parts of {@code count} elements each ({@code MPI_Psend_init}).
     * Its parts travel as ordered messages with {@code tag} on this communicator, so while it is active
     * no other message from this rank to {@code dest} may use {@code tag}.
     */
    PartitionedRequest psendInit(MemorySegment buffer, int partitions, long count, Datatype type, int dest, int tag);

    /** A partitioned receive of {@code partitions} parts of {@code count} elements each ({@code MPI_Precv_init}). */
    PartitionedRequest precvInit(MemorySegment buffer, int partitions, long count, Datatype type, int source, int tag);

    /**
     * Memory for message buffers ({@code MPI_Alloc_mem}). Providers may place it where it survives
     * a superstep (EM-BSP) or where the device can deliver into it directly; elsewhere it is
     * off-heap memory. Released by {@link #free(MemorySegment)} or when the communicator closes.
     */
    MemorySegment allocate(long byteSize);

    /** Releases memory from {@link #allocate(long)} ({@code MPI_Free_mem}). */
    void free(MemorySegment segment);

    // ---- one-sided communication (MPI 4.1 chapter 12) ----

    /**
     * A window of {@code byteSize} bytes of new memory at this rank ({@code MPI_Win_allocate});
     * collective. Providers without one-sided communication fail with
     * {@link ErrorClass#UNSUPPORTED_OPERATION}.
     *
     * @throws LockstepException {@link ErrorClass#ARG} for a negative size or a displacement unit below 1
     */
    default Window allocateWindow(long byteSize, int dispUnit, Info hints) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getName() + " has no one-sided communication");
    }

    /**
     * A window whose parts every rank can load and store directly through
     * {@link Window#sharedQuery} ({@code MPI_Win_allocate_shared}); collective.
     *
     * @throws LockstepException {@link ErrorClass#UNSUPPORTED_OPERATION} if the ranks do not share memory
     */
    default Window allocateSharedWindow(long byteSize, int dispUnit, Info hints) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getName() + " has no shared windows");
    }

    /** A window over memory the caller owns ({@code MPI_Win_create}); collective. */
    default Window createWindow(MemorySegment base, int dispUnit, Info hints) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getName() + " has no one-sided communication");
    }

    /**
     * Checkpoint and restart of this rank ({@link Checkpoints}). Providers without persistence
     * (and this default) return {@link Checkpoints#unsupported()}, whose checkpoint is a declared
     * no-op, so programs that checkpoint run unchanged everywhere.
     */
    default Checkpoints checkpoints() {
        return Checkpoints.unsupported();
    }

    /**
     * Ends this rank's use of the communicator ({@code MPI_Comm_free}): its attributes go to their
     * keys' deleters, latest set first; later calls fail with {@link ErrorClass#COMM}. A deleter's
     * exception is this call's, after the communicator is closed and the other deleters have run.
     */
    @Override
    void close();

    // ---- communicators (MPI 4.1 chapter 7) ----

    /**
     * A communicator with the same group and a new, isolated context ({@code MPI_Comm_dup});
     * collective. It holds what each attribute's {@link Keyval.Copier} gives for it; if a copier
     * throws, the new communicator is closed and the exception is this call's.
     */
    Communicator dup();

    /**
     * {@link #dup} whose new communicator has the hints {@code hints} instead of this one's
     * ({@code MPI_Comm_dup_with_info}); collective.
     */
    Communicator dup(Info hints);

    /**
     * Partitions the group by {@code color}; within a color, ranks are ordered by {@code key}, then by
     * rank here ({@code MPI_Comm_split}); collective. Returns {@code null} for {@link #UNDEFINED}.
     */
    Communicator split(int color, int key);

    /** Kinds of {@link #splitType}. */
    enum SplitType {
        /** Ranks that share memory: for the mailbox transport, the ranks on one device ({@code MPI_COMM_TYPE_SHARED}). */
        SHARED
    }

    /** The group of this communicator ({@code MPI_Comm_group}). */
    Group group();

    /**
     * {@link Group.Comparison#IDENT} for the same communicator, {@code CONGRUENT} for the same
     * group in another context, {@code SIMILAR} for the same members in another order, else
     * {@code UNEQUAL} ({@code MPI_Comm_compare}).
     */
    Group.Comparison compare(Communicator other);

    /**
     * A communicator of {@code group}, a subset of this one's group ({@code MPI_Comm_create});
     * collective over this communicator; {@code null} at ranks outside {@code group}.
     *
     * @throws LockstepException {@link ErrorClass#GROUP} if {@code group} has a process outside this communicator
     */
    Communicator create(Group group);

    /**
     * A communicator of {@code group}, collective over the members of {@code group} only
     * ({@code MPI_Comm_create_group}); {@code tag} tells concurrent calls apart. Only members may call it.
     */
    Communicator createGroup(Group group, int tag);

    /**
     * Splits by kind of shared resource ({@code MPI_Comm_split_type}); within a part, ranks are
     * ordered by {@code key}, then by rank here; collective.
     */
    Communicator splitType(SplitType type, int key);

    /**
     * An intercommunicator between this communicator's group and another, disjoint group
     * ({@code MPI_Intercomm_create}); collective over this communicator, while the other group's
     * ranks make theirs. {@code localLeader} is a rank here; at the leader only, {@code peer} is a
     * communicator that holds both leaders, {@code remoteLeader} the other leader's rank in it, and
     * the leaders exchange the groups over {@code peer} with {@code tag} (elsewhere {@code peer}
     * may be null and {@code remoteLeader} is ignored).
     *
     * @throws LockstepException {@link ErrorClass#GROUP} if the groups share a process,
     *         {@link ErrorClass#RANK} for a leader outside its communicator,
     *         {@link ErrorClass#UNSUPPORTED_OPERATION} if the provider cannot make communicators
     *         that span ranks of several communicators
     */
    Intercommunicator createIntercommunicator(int localLeader, Communicator peer, int remoteLeader, int tag);

    /** Non-blocking {@link #dup} ({@code MPI_Comm_idup}); the attributes are copied when the request completes. */
    CommunicatorRequest idup();

    /** {@link #idup} whose new communicator has the hints {@code hints} ({@code MPI_Comm_idup_with_info}). */
    CommunicatorRequest idup(Info hints);

    /** Names this communicator ({@code MPI_Comm_set_name}); local. */
    void setName(String name);

    /** The name set by {@link #setName}, else the provider's ({@code MPI_Comm_get_name}). */
    String name();

    /**
     * Gives this communicator the hints {@code hints} ({@code MPI_Comm_set_info}); local here,
     * where MPI's is collective. No provider acts on a hint yet: they are kept, read back by
     * {@link #info()} and passed on by {@link #dup()}.
     */
    void setInfo(Info hints);

    /** The hints of this communicator ({@code MPI_Comm_get_info}): those set, or passed on by the duplicated communicator. */
    Info info();

    /**
     * What this communicator does with the errors of its calls from now on
     * ({@code MPI_Comm_set_errhandler}); local. {@link ErrorHandler#RETURN} until set.
     */
    void setErrorHandler(ErrorHandler handler);

    /** This communicator's error handler ({@code MPI_Comm_get_errhandler}). */
    ErrorHandler errorHandler();

    /**
     * Runs this communicator's error handler on {@code error} ({@code MPI_Comm_call_errhandler});
     * returns if the handler does.
     */
    void callErrorHandler(LockstepException error);

    /**
     * Holds {@code value} under {@code key} here ({@code MPI_Comm_set_attr}); local. A value held
     * before under the key goes to the key's deleter first; if the deleter throws, the old value
     * stays and the exception is this call's.
     *
     * @throws LockstepException {@link ErrorClass#KEYVAL} if the key was freed, {@link ErrorClass#ARG}
     *         for a null key or value
     */
    <T> void setAttribute(Keyval<T> key, T value);

    /** The value held under {@code key} here, if any ({@code MPI_Comm_get_attr}); local. */
    <T> Optional<T> attribute(Keyval<T> key);

    /**
     * Removes the value held under {@code key} here, handing it to the key's deleter
     * ({@code MPI_Comm_delete_attr}); local. Without a value, nothing happens. If the deleter
     * throws, the value stays.
     */
    void deleteAttribute(Keyval<?> key);

    // ---- collectives (MPI 4.1 chapter 6); counts are element counts of the datatype ----

    /** Blocks until every rank has called it ({@code MPI_Barrier}). */
    void barrier();

    /** Copies {@code count} elements from the root's buffer into every rank's ({@code MPI_Bcast}). */
    void bcast(MemorySegment buffer, long count, Datatype type, int root);

    /** The root receives {@code count} elements from each rank, in rank order ({@code MPI_Gather}); {@code send} may be {@link #IN_PLACE} at the root. */
    void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #gather} with per-rank counts and displacements (in elements) at the root ({@code MPI_Gatherv}). */
    void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements, int root);

    /** Rank i receives the i-th block of {@code count} elements of the root's buffer ({@code MPI_Scatter}); {@code recv} may be {@link #IN_PLACE} at the root. */
    void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** As {@link #scatter} with per-rank counts and displacements at the root ({@code MPI_Scatterv}). */
    void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount, int root);

    /** Every rank receives {@code count} elements from each rank, in rank order ({@code MPI_Allgather}). */
    void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #allgather} with per-rank counts and displacements ({@code MPI_Allgatherv}). */
    void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements);

    /** Block j of rank i's send buffer becomes block i of rank j's receive buffer ({@code MPI_Alltoall}). */
    void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** As {@link #alltoall} with per-peer counts and displacements on both sides ({@code MPI_Alltoallv}). */
    void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements);

    /** Combines {@code count} elements from every rank with {@code op}, in rank order, into the root's {@code recv} ({@code MPI_Reduce}). */
    void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    /** As {@link #reduce}, with the result on every rank, bit-identical everywhere ({@code MPI_Allreduce}). */
    void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** Reduces, then scatters block i (of {@code recvCounts[i]} elements) to rank i ({@code MPI_Reduce_scatter}). */
    void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    /** As {@link #reduceScatter} with equal blocks ({@code MPI_Reduce_scatter_block}). */
    void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    /** Inclusive prefix reduction: rank i receives the combination of ranks 0..i ({@code MPI_Scan}). */
    void scan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** Exclusive prefix reduction: rank i receives ranks 0..i-1; rank 0's {@code recv} is left untouched ({@code MPI_Exscan}). */
    void exscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** Non-blocking {@link #barrier} ({@code MPI_Ibarrier}). */
    Request ibarrier();

    /** Non-blocking {@link #bcast} ({@code MPI_Ibcast}). */
    Request ibcast(MemorySegment buffer, long count, Datatype type, int root);

    /** Non-blocking {@link #allreduce} ({@code MPI_Iallreduce}). */
    Request iallreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /**
     * Block j of this rank's send buffer, {@code sendCounts[j]} elements of {@code sendTypes[j]} at
     * byte displacement {@code sendDisplacements[j]}, goes to rank j, whose receive buffer holds it
     * as described by its own {@code recv…[i]} for this rank i ({@code MPI_Alltoallw});
     * {@code send} may be {@link #IN_PLACE} (then the send arguments are ignored).
     */
    void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    // ---- the general forms of the data-moving collectives: each side with its own count and datatype
    // (MPI's sendcount/sendtype and recvcount/recvtype; the data described must be the same bytes).
    // Arguments that MPI calls insignificant at a rank (the receive side of a non-root gather, ...) may be null there.

    /** {@link #gather} with the root's receive side described by {@code recvCount} elements of {@code recvType} per rank. */
    void gather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType, int root);

    /** {@link #gatherv} with its own send and receive types. */
    void gatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts, long[] displacements,
                 Datatype recvType, int root);

    /** {@link #scatter} with its own send and receive types. */
    void scatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType, int root);

    /** {@link #scatterv} with its own send and receive types. */
    void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv, long recvCount,
                  Datatype recvType, int root);

    /** {@link #allgather} with its own send and receive types. */
    void allgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** {@link #allgatherv} with its own send and receive types. */
    void allgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts, long[] displacements,
                    Datatype recvType);

    /** {@link #alltoall} with its own send and receive types (e.g. columns sent, rows received: a transpose). */
    void alltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** {@link #alltoallv} with its own send and receive types. */
    void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                   MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType);

    Request igather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType, int root);

    Request igatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts, long[] displacements,
                     Datatype recvType, int root);

    Request iscatter(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType, int root);

    Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype sendType, MemorySegment recv,
                      long recvCount, Datatype recvType, int root);

    Request iallgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    Request iallgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                        long[] displacements, Datatype recvType);

    Request ialltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                       MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType);

    // ---- non-blocking collectives (MPI 4.1 §6.12): the buffers must not be touched until the request completes ----

    /** Non-blocking {@link #gather} ({@code MPI_Igather}). */
    Request igather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** Non-blocking {@link #gatherv} ({@code MPI_Igatherv}). */
    Request igatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements, int root);

    /** Non-blocking {@link #scatter} ({@code MPI_Iscatter}). */
    Request iscatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    /** Non-blocking {@link #scatterv} ({@code MPI_Iscatterv}). */
    Request iscatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount, int root);

    /** Non-blocking {@link #allgather} ({@code MPI_Iallgather}). */
    Request iallgather(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** Non-blocking {@link #allgatherv} ({@code MPI_Iallgatherv}). */
    Request iallgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements);

    /** Non-blocking {@link #alltoall} ({@code MPI_Ialltoall}). */
    Request ialltoall(MemorySegment send, long count, Datatype type, MemorySegment recv);

    /** Non-blocking {@link #alltoallv} ({@code MPI_Ialltoallv}). */
    Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                       MemorySegment recv, long[] recvCounts, long[] recvDisplacements);

    /** Non-blocking {@link #alltoallw} ({@code MPI_Ialltoallw}). */
    Request ialltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                       MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** Non-blocking {@link #reduce} ({@code MPI_Ireduce}). */
    Request ireduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    /** Non-blocking {@link #reduceScatter} ({@code MPI_Ireduce_scatter}). */
    Request ireduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    /** Non-blocking {@link #reduceScatterBlock} ({@code MPI_Ireduce_scatter_block}). */
    Request ireduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    /** Non-blocking {@link #scan} ({@code MPI_Iscan}). */
    Request iscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    /** Non-blocking {@link #exscan} ({@code MPI_Iexscan}). */
    Request iexscan(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    // ---- persistent collectives (MPI 4.1 §6.13): collective to make; every rank starts them in the same order ----

    PersistentRequest barrierInit();

    PersistentRequest bcastInit(MemorySegment buffer, long count, Datatype type, int root);

    PersistentRequest gatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    PersistentRequest gathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                  long[] displacements, int root);

    PersistentRequest scatterInit(MemorySegment send, long count, Datatype type, MemorySegment recv, int root);

    PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv,
                                   long recvCount, int root);

    PersistentRequest allgatherInit(MemorySegment send, long count, Datatype type, MemorySegment recv);

    PersistentRequest allgathervInit(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts,
                                     long[] displacements);

    PersistentRequest alltoallInit(MemorySegment send, long count, Datatype type, MemorySegment recv);

    PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements);

    PersistentRequest alltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                    MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root);

    PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op);

    PersistentRequest reduceScatterBlockInit(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op);

    PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op);

    // ---- process topologies and neighbourhood collectives (MPI 4.1 chapter 8) ----

    /** The topology this communicator carries ({@code MPI_Topo_test}); {@link Topology#NONE} unless made by a topology constructor. */
    Topology topology();

    /**
     * A Cartesian grid of {@code dims} over the first ranks of this communicator
     * ({@code MPI_Cart_create}); collective. Ranks keep their order ({@code reorder} is allowed
     * but not acted on); ranks beyond the grid's size get {@code null}.
     *
     * @throws LockstepException {@link ErrorClass#DIMS} for a negative or zero dimension or
     *         {@code periods} of another length, {@link ErrorClass#TOPOLOGY} for a grid larger than
     *         this communicator
     */
    CartesianCommunicator createCart(int[] dims, boolean[] periods, boolean reorder);

    /**
     * A distributed graph in which each rank names its own edges in and out
     * ({@code MPI_Dist_graph_create_adjacent}); collective. Weights are null for an unweighted
     * graph (MPI's {@code MPI_UNWEIGHTED}), else one per edge; {@code reorder} is allowed but not acted on.
     *
     * @throws LockstepException {@link ErrorClass#RANK} for a neighbour outside this communicator,
     *         {@link ErrorClass#ARG} for weights that are negative or not one per edge
     */
    DistGraphCommunicator createDistGraphAdjacent(int[] sources, int[] sourceWeights, int[] destinations, int[] destinationWeights,
                                                  Info hints, boolean reorder);

    /**
     * A distributed graph in which any rank may name any edges ({@code MPI_Dist_graph_create}):
     * for each {@code sources[i]}, {@code degrees[i]} edges to the next entries of
     * {@code destinations} (with as many {@code weights}, or null weights); collective. Each rank's
     * neighbours are then ordered by the rank that named the edge, then as that rank named them.
     *
     * @throws LockstepException {@link ErrorClass#RANK} for a rank outside this communicator,
     *         {@link ErrorClass#ARG} for degrees or weights that do not fit the edges
     */
    DistGraphCommunicator createDistGraph(int[] sources, int[] degrees, int[] destinations, int[] weights, Info hints, boolean reorder);

    /**
     * Every neighbour receives this rank's {@code sendCount} elements; block i of {@code recv}
     * ({@code recvCount} elements) comes from the i-th source neighbour ({@code MPI_Neighbor_allgather}).
     *
     * @throws LockstepException {@link ErrorClass#TOPOLOGY} on a communicator without a topology
     */
    void neighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** As {@link #neighborAllgather}, block i of {@code recvCounts[i]} elements at element displacement {@code displacements[i]} ({@code MPI_Neighbor_allgatherv}). */
    void neighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                            long[] displacements, Datatype recvType);

    /** Block j of {@code send} goes to the j-th destination neighbour, block i of {@code recv} comes from the i-th source ({@code MPI_Neighbor_alltoall}). */
    void neighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** As {@link #neighborAlltoall} with per-neighbour counts and element displacements ({@code MPI_Neighbor_alltoallv}). */
    void neighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                           MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType);

    /** As {@link #neighborAlltoallv} with a datatype per neighbour and byte displacements ({@code MPI_Neighbor_alltoallw}). */
    void neighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                           MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** Non-blocking {@link #neighborAllgather} ({@code MPI_Ineighbor_allgather}). */
    Request ineighborAllgather(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** Non-blocking {@link #neighborAllgatherv} ({@code MPI_Ineighbor_allgatherv}). */
    Request ineighborAllgatherv(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                long[] displacements, Datatype recvType);

    /** Non-blocking {@link #neighborAlltoall} ({@code MPI_Ineighbor_alltoall}). */
    Request ineighborAlltoall(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount, Datatype recvType);

    /** Non-blocking {@link #neighborAlltoallv} ({@code MPI_Ineighbor_alltoallv}). */
    Request ineighborAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                               MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType);

    /** Non-blocking {@link #neighborAlltoallw} ({@code MPI_Ineighbor_alltoallw}). */
    Request ineighborAlltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                               MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** Persistent {@link #neighborAllgather} ({@code MPI_Neighbor_allgather_init}): each start runs it with the buffers' contents then. */
    PersistentRequest neighborAllgatherInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                            Datatype recvType);

    /** Persistent {@link #neighborAllgatherv} ({@code MPI_Neighbor_allgatherv_init}). */
    PersistentRequest neighborAllgathervInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long[] recvCounts,
                                             long[] displacements, Datatype recvType);

    /** Persistent {@link #neighborAlltoall} ({@code MPI_Neighbor_alltoall_init}). */
    PersistentRequest neighborAlltoallInit(MemorySegment send, long sendCount, Datatype sendType, MemorySegment recv, long recvCount,
                                           Datatype recvType);

    /** Persistent {@link #neighborAlltoallv} ({@code MPI_Neighbor_alltoallv_init}). */
    PersistentRequest neighborAlltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype sendType,
                                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype recvType);

    /** Persistent {@link #neighborAlltoallw} ({@code MPI_Neighbor_alltoallw_init}). */
    PersistentRequest neighborAlltoallwInit(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes,
                                            MemorySegment recv, long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes);

    /** {@link #neighborAllgather} with one count and datatype on both sides. */
    default void neighborAllgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        neighborAllgather(send, count, type, recv, count, type);
    }

    /** {@link #neighborAlltoall} with one count and datatype on both sides. */
    default void neighborAlltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        neighborAlltoall(send, count, type, recv, count, type);
    }

    // ---- array conveniences ----

    default void send(byte[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.BYTE, dest, tag);
    }

    default void send(int[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.INT, dest, tag);
    }

    default void send(long[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.LONG, dest, tag);
    }

    default void send(double[] data, int dest, int tag) {
        send(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, dest, tag);
    }

    default Status recv(byte[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.BYTE, source, tag);
    }

    default Status recv(int[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.INT, source, tag);
    }

    default Status recv(long[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.LONG, source, tag);
    }

    default Status recv(double[] data, int source, int tag) {
        return recv(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, source, tag);
    }

    default Request isend(byte[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.BYTE, dest, tag);
    }

    default Request irecv(byte[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.BYTE, source, tag);
    }

    default Request isend(int[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.INT, dest, tag);
    }

    default Request isend(long[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.LONG, dest, tag);
    }

    default Request isend(double[] data, int dest, int tag) {
        return isend(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, dest, tag);
    }

    default Request irecv(int[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.INT, source, tag);
    }

    default Request irecv(long[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.LONG, source, tag);
    }

    default Request irecv(double[] data, int source, int tag) {
        return irecv(MemorySegment.ofArray(data), data.length, Datatype.DOUBLE, source, tag);
    }
}
