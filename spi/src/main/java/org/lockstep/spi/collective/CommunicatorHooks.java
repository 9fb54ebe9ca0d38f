package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.CommunicatorRequest;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.PartitionedRequest;
import org.lockstep.api.PersistentRequest;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.events.ReceiveEvent;
import org.lockstep.spi.messaging.ArgumentChecks;

/**
 * What a provider's communicator implements for {@link AbstractCommunicator}'s templates: the
 * protected {@code impl…} hooks, which see checked arguments, valid ranks and packed bytes only,
 * the collective channel and engine; and whether the communicator is still open. The first of the
 * layers {@link AbstractCommunicator} is built from (hooks, {@link PointToPointTemplates},
 * {@link CollectiveTemplates}, {@link NonBlockingCollectiveTemplates},
 * {@link PersistentCollectiveTemplates}); providers extend
 * {@link AbstractCommunicator}, never a layer.
 */
public abstract class CommunicatorHooks implements Communicator {
    /** Set once by {@link AbstractCommunicator#close}. */
    volatile boolean closed;
    /** The error handler, and where every template hands it its errors. */
    final ErrorHandling errors = new ErrorHandling(this);
    /**
     * Set once this communicator serves as another's collective channel: its messages belong to
     * collective algorithms, and its send and receive events say so.
     */
    boolean carriesCollectives;

    /** Only the layers of this package extend it. */
    CommunicatorHooks() {
    }

    /**
     * Starts sending the first {@code bytes} bytes of {@code data} to rank {@code dest} (a rank of
     * this communicator, never {@code PROC_NULL}); {@code synchronous}: the request completes only
     * once the matching receive has started.
     */
    protected abstract Request implSend(MemorySegment data, long bytes, int dest, int tag, boolean synchronous);

    /**
     * Starts receiving at most {@code capacity} bytes into {@code buffer} from {@code source} (a
     * rank or {@code ANY_SOURCE}) with {@code tag} (or {@code ANY_TAG}); the status counts bytes.
     */
    protected abstract Request implReceive(MemorySegment buffer, long capacity, int source, int tag);

    /**
     * A blocking send, for a provider whose transport has a faster one than its non-blocking send
     * awaited (a native {@code MPI_Send}); the default is exactly that.
     */
    protected void implSendBlocking(MemorySegment data, long bytes, int dest, int tag, boolean synchronous) {
        implSend(data, bytes, dest, tag, synchronous).await();
    }

    /** A blocking receive into contiguous memory; the default awaits {@link #implReceive}. */
    protected Status implReceiveBlocking(MemorySegment buffer, long capacity, int source, int tag) {
        return implReceive(buffer, capacity, source, tag).await();
    }

    /** Blocks until a matching message is available ({@code source} a rank or {@code ANY_SOURCE}). */
    protected abstract Status implProbe(int source, int tag);

    /** The status of a matching message available now. */
    protected abstract Optional<Status> implIprobe(int source, int tag);

    /** A communicator with this group and a new context; collective. */
    protected abstract Communicator implDup();

    /** {@link #split}, with a color already checked; collective. */
    protected abstract Communicator implSplit(int color, int key);

    /** The world rank (the process's rank in the provider's world) of rank {@code rank} here. */
    protected abstract int implWorldRank(int rank);

    /**
     * A communicator of the ranks {@code ranks} of this one (in that order; this rank among them),
     * agreed on by them alone ({@code MPI_Comm_create_group}); {@code tag} tells concurrent calls apart.
     */
    protected abstract Communicator implCreateGroup(int[] ranks, int tag);

    /** Starts a {@link #dup} that does not block ({@code MPI_Comm_idup}); collective. */
    protected abstract CommunicatorRequest implIdup();

    /**
     * Which ranks share memory with this one, for {@link #splitType}: ranks returning the same value
     * share it. The default, 0, says every rank of the communicator does (one device).
     */
    protected int implSharedMemoryDomain() {
        return 0;
    }

    /** The largest tag the provider carries ({@code MPI_TAG_UB}); by default {@link Communicator#TAG_UB}. */
    protected int implTagUpperBound() {
        return TAG_UB;
    }

    /**
     * How many ranks the job can have ({@code MPI_UNIVERSE_SIZE}), or -1 if the provider cannot
     * tell; by default the launched job's size, if this process was launched as one of its ranks.
     */
    protected int implUniverseSize() {
        return org.lockstep.api.LaunchEnvironment.current().map(org.lockstep.api.LaunchEnvironment::size).orElse(-1);
    }

    /**
     * Whether {@link org.lockstep.api.Environment#wtime()} agrees across the ranks
     * ({@code MPI_WTIME_IS_GLOBAL}); by default not: each process counts from its own origin.
     */
    protected boolean implWtimeIsGlobal() {
        return false;
    }

    /** {@link #splitType}{@code (SHARED, key)}: by default a split by {@link #implSharedMemoryDomain()}. */
    protected Communicator implSplitShared(int key) {
        return implSplit(implSharedMemoryDomain(), key);
    }

    /**
     * This rank's proposal for the context of a communicator that spans ranks of several
     * communicators (an intercommunicator's bridge), reserved here; the members agree on the
     * largest of theirs. The default: such communicators are not supported.
     */
    protected long implSpanningProposal() {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getSimpleName()
                + " cannot make a communicator that spans ranks of several communicators (an intercommunicator)");
    }

    /**
     * The communicator of the processes {@code worldRanks} (in that order, this rank among them) on
     * the context {@code agreed}, the largest of its members' {@link #implSpanningProposal()}s; collective over them.
     */
    protected Communicator implSpanning(int[] worldRanks, long agreed) {
        throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, getClass().getSimpleName()
                + " cannot make a communicator that spans ranks of several communicators (an intercommunicator)");
    }

    protected abstract MemorySegment implAllocate(long byteSize);

    protected abstract void implFree(MemorySegment segment);

    /** Releases what this communicator holds; called once, by the first {@link #close()}. */
    protected abstract void implClose();

    /**
     * A communicator with this one's group whose point-to-point operations use a context private
     * to collectives. It must be the same object for the life of this communicator: the default
     * algorithms count the collectives started on it, and that count is part of their tags.
     */
    protected abstract Communicator collectiveChannel();

    /** The algorithms this communicator's collectives run; providers override to replace some or all. */
    protected CollectiveEngine collectiveEngine() {
        return PointToPointCollectives.INSTANCE;
    }

    /**
     * Runs {@code call}, handing its error to the error handler before it is thrown: the one funnel
     * of the templates off the latency path (the point-to-point ones have a try of their own).
     */
    final <T> T withHandler(Supplier<T> call) {
        errors.begin();
        try {
            return call.get();
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    /** {@link #withHandler} for a call without a result. */
    final void runWithHandler(Runnable call) {
        errors.begin();
        try {
            call.run();
        } catch (LockstepException e) {
            throw errors.failed(e);
        }
    }

    /** {@link #withHandler} for a call that starts a request, whose errors at completion reach the handler too. */
    final Request started(Supplier<Request> call) {
        return errors.handled(withHandler(call));
    }

    /**
     * {@code started}, a non-blocking receive whose completion a wait or test sees is recorded as
     * {@code event} (begun at its start; when it is null, nothing is recorded and {@code started} is
     * returned as it is). A cancelled or failed receive is not recorded.
     */
    final Request recordedReceive(ReceiveEvent event, Request started, boolean anySource) {
        if (event == null || started == null) {
            return started;
        }
        int rank = rank();
        boolean collective = carriesCollectives;
        return new CompletingRequest(started, status -> {
            if (status != null && !status.cancelled()) {
                event.received(rank, status.source(), status.tag(), status.byteCount(), anySource, collective, false);
            }
        });
    }

    /** {@link #started} of a persistent request. */
    final PersistentRequest startedPersistent(Supplier<PersistentRequest> call) {
        return errors.handled(withHandler(call));
    }

    /** {@link #started} of a partitioned request. */
    final PartitionedRequest startedPartitioned(Supplier<PartitionedRequest> call) {
        return errors.handled(withHandler(call));
    }

    /** Begins a call (see {@link ErrorHandling#begin}) and checks a send's arguments on this open communicator; returns its byte length. */
    final long checkedSendBytes(MemorySegment buffer, long count, Datatype type, int dest, int tag) {
        errors.begin();
        checkOpen();
        long bytes = ArgumentChecks.checkBuffer(buffer, count, type, false);
        ArgumentChecks.checkDestination(dest, size());
        ArgumentChecks.checkSendTag(tag);
        return bytes;
    }

    /** Begins a call and checks a receive's arguments on this open communicator; returns its capacity in bytes. */
    final long checkedReceiveCapacity(MemorySegment buffer, long count, Datatype type, int source, int tag) {
        errors.begin();
        checkOpen();
        long capacity = ArgumentChecks.checkBuffer(buffer, count, type, true);
        ArgumentChecks.checkSource(source, size());
        ArgumentChecks.checkReceiveTag(tag);
        return capacity;
    }

    /** Fails with {@link ErrorClass#COMM} once the communicator is closed. */
    protected final void checkOpen() {
        if (closed) {
            throw new LockstepException(ErrorClass.COMM, "communicator of rank " + rank() + " is closed");
        }
    }

    protected final boolean isClosed() {
        return closed;
    }
}
