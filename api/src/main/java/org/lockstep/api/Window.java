package org.lockstep.api;

import java.lang.foreign.MemorySegment;

/**
 * A window of memory that the ranks of a communicator read and write one-sidedly ({@code MPI_Win},
 * MPI 4.1 chapter 12). Made collectively by {@link Communicator#allocateWindow},
 * {@link Communicator#allocateSharedWindow} or {@link Communicator#createWindow}; freed collectively
 * by {@link #free}.
 *
 * <p>A target displacement counts the target's displacement units (its {@code dispUnit}); an access
 * must lie inside the target's window ({@link ErrorClass#RMA_RANGE}) and inside an access epoch
 * to that target ({@link ErrorClass#RMA_SYNC}): after a {@link #fence}, between {@link #start} and
 * {@link #complete}, or while holding a lock ({@link #lock}, {@link #lockAll}). Origin and target
 * layouts are {@code count} elements of one {@code type}, or each its own count and type of one
 * type signature; a derived type moves its pieces, leaving the gaps between them alone.
 * Accumulating calls ({@link #accumulate}, {@link #getAccumulate}, {@link #fetchAndOp},
 * {@link #compareAndSwap}) are atomic per element against each other and take predefined
 * operations only.
 *
 * <p>A put or accumulate returns once the origin buffer may be reused; its result is visible at the
 * target after the epoch's closing call ({@link #fence}, {@link #complete} then the target's
 * {@link #waitExposure}, {@link #unlock}, {@link #flush}). A get's buffer is filled by then.
 *
 * <p>Like its communicator, a window is used by one thread of its rank at a time.
 */
public interface Window extends AutoCloseable {
    /** The kinds of passive-target lock ({@code MPI_LOCK_EXCLUSIVE}, {@code MPI_LOCK_SHARED}). */
    enum LockType { EXCLUSIVE, SHARED }

    /**
     * What a program promises at a synchronisation call ({@code MPI_MODE_*}, MPI 4.1 §12.5.5), so
     * the window may skip work: each call takes only those MPI allows it ({@link ErrorClass#ASSERT}
     * otherwise). A false promise is the program's error, as in MPI.
     */
    enum Assertion {
        /**
         * {@link #lock}, {@link #lockAll}: no other rank holds or asks for a conflicting lock meanwhile
         * (the lock is not taken); {@link #start}: every target has posted already (start does not
         * wait for the posts); {@link #post}: no origin has called its matching start yet.
         */
        NOCHECK,
        /** {@link #fence}, {@link #post}: this rank has not stored to its part since the last synchronisation. */
        NOSTORE,
        /** {@link #fence}, {@link #post}: no rank puts or accumulates into this rank's part until the next synchronisation. */
        NOPUT,
        /** {@link #fence}: no access precedes it since the previous fence (it completes none, so waits for no one's). */
        NOPRECEDE,
        /** {@link #fence}: no access follows it until the next synchronisation (it opens no epoch). */
        NOSUCCEED
    }

    /** The ranks of the window: those of the communicator it was made on ({@code MPI_Win_get_group}). */
    Group group();

    /** This rank's part of the window ({@code MPI_WIN_BASE}, {@code MPI_WIN_SIZE}). */
    MemorySegment segment();

    /** Bytes per displacement unit of this rank's part ({@code MPI_WIN_DISP_UNIT}). */
    int dispUnit();

    /**
     * Rank {@code rank}'s part of a window made by {@link Communicator#allocateSharedWindow}, for
     * direct loads and stores ({@code MPI_Win_shared_query}); accesses to it follow the window's
     * synchronisation like any other (a {@link #sync} makes them visible).
     *
     * @throws LockstepException {@link ErrorClass#WIN} if the window is not shared,
     *         {@link ErrorClass#RANK} if {@code rank} is not a rank of the window
     */
    MemorySegment sharedQuery(int rank);

    /** Writes {@code count} elements of {@code type} from {@code origin} to {@code target}'s window at {@code targetDisp} ({@code MPI_Put}). */
    void put(MemorySegment origin, long count, Datatype type, int target, long targetDisp);

    /**
     * {@link #put} with the target's own layout ({@code MPI_Put}'s full form): {@code originCount}
     * elements of {@code originType} land as {@code targetCount} elements of {@code targetType},
     * which must have the same type signature (the same basic types in order).
     *
     * @throws LockstepException {@link ErrorClass#TYPE} if the signatures differ
     */
    void put(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp, long targetCount, Datatype targetType);

    /** Reads {@code count} elements of {@code type} from {@code target}'s window at {@code targetDisp} into {@code origin} ({@code MPI_Get}). */
    void get(MemorySegment origin, long count, Datatype type, int target, long targetDisp);

    /** {@link #get} with the target's own layout, as {@link #put(MemorySegment, long, Datatype, int, long, long, Datatype)} has it. */
    void get(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp, long targetCount, Datatype targetType);

    /** Combines {@code origin} into the target's elements with {@code op}, atomically per element ({@code MPI_Accumulate}). */
    void accumulate(MemorySegment origin, long count, Datatype type, int target, long targetDisp, Op op);

    /** {@link #accumulate} with the target's own layout, of the same signature and one predefined element type. */
    void accumulate(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp, long targetCount,
                    Datatype targetType, Op op);

    /** As {@link #accumulate}, first fetching the target's elements into {@code result} ({@code MPI_Get_accumulate}); {@link Op#NO_OP} only fetches. */
    void getAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long targetDisp, Op op);

    /**
     * {@link #getAccumulate} with each buffer's own layout: origin, result and target of one
     * signature (with {@link Op#NO_OP} the origin is not read and its layout not checked).
     */
    void getAccumulate(MemorySegment origin, long originCount, Datatype originType, MemorySegment result, long resultCount,
                       Datatype resultType, int target, long targetDisp, long targetCount, Datatype targetType, Op op);

    /** {@link #getAccumulate} of one element ({@code MPI_Fetch_and_op}). */
    void fetchAndOp(MemorySegment origin, MemorySegment result, Datatype type, int target, long targetDisp, Op op);

    /**
     * Replaces the target's element by {@code origin}'s if it equals {@code compare}'s, returning the
     * element it held in {@code result}, atomically ({@code MPI_Compare_and_swap}).
     */
    void compareAndSwap(MemorySegment origin, MemorySegment compare, MemorySegment result, Datatype type, int target, long targetDisp);

    /**
     * {@link #put} returning a request that completes once {@code origin} may be reused ({@code MPI_Rput}).
     * Request-based accesses belong to passive-target epochs: {@code target} must be locked by this
     * rank ({@link #lock}, {@link #lockAll}). Completing the request completes the access at this
     * origin only; {@link #flush} or {@link #unlock} complete it at the target.
     *
     * @throws LockstepException {@link ErrorClass#RMA_SYNC} if this rank holds no lock on {@code target}
     */
    Request rput(MemorySegment origin, long count, Datatype type, int target, long targetDisp);

    /** {@link #get} returning a request that completes once {@code origin} holds the target's elements ({@code MPI_Rget}); as {@link #rput}, under a lock only. */
    Request rget(MemorySegment origin, long count, Datatype type, int target, long targetDisp);

    /** {@link #accumulate} returning a request that completes once {@code origin} may be reused ({@code MPI_Raccumulate}); under a lock only. */
    Request raccumulate(MemorySegment origin, long count, Datatype type, int target, long targetDisp, Op op);

    /** {@link #getAccumulate} returning a request that completes once {@code result} holds the fetched elements ({@code MPI_Rget_accumulate}); under a lock only. */
    Request rgetAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long targetDisp, Op op);

    /**
     * Collective over the window: completes every access of the closing epoch at origin and target
     * and opens the next ({@code MPI_Win_fence}).
     *
     * @throws LockstepException {@link ErrorClass#RMA_SYNC} if a rank meets it with post or start
     *         calls instead, or this rank is inside a lock or post-start epoch
     */
    void fence();

    /**
     * {@link #fence} with the program's {@code assertions}: {@link Assertion#NOSTORE},
     * {@link Assertion#NOPUT}, {@link Assertion#NOPRECEDE}, {@link Assertion#NOSUCCEED}, given alike
     * by every rank.
     *
     * @throws LockstepException {@link ErrorClass#ASSERT} for another assertion,
     *         {@link ErrorClass#RMA_SYNC} for {@code NOPRECEDE} after this rank's accesses of the epoch
     *         it would close; an access after a fence with {@code NOSUCCEED} is {@code RMA_SYNC}
     */
    void fence(Assertion... assertions);

    /** Opens an exposure epoch for the ranks of {@code origins} ({@code MPI_Win_post}). */
    void post(Group origins);

    /** {@link #post} with {@link Assertion#NOCHECK}, {@link Assertion#NOSTORE}, {@link Assertion#NOPUT} ({@link ErrorClass#ASSERT} for others). */
    void post(Group origins, Assertion... assertions);

    /** Opens an access epoch to the ranks of {@code targets}, once they have posted ({@code MPI_Win_start}). */
    void start(Group targets);

    /** {@link #start} with {@link Assertion#NOCHECK} ({@link ErrorClass#ASSERT} for others): the targets have posted already. */
    void start(Group targets, Assertion... assertions);

    /** Closes the access epoch of {@link #start}: every access of it is complete at this origin ({@code MPI_Win_complete}). */
    void complete();

    /** Closes the exposure epoch of {@link #post} once every origin has completed ({@code MPI_Win_wait}). */
    void waitExposure();

    /** Opens a passive-target access epoch to {@code rank} ({@code MPI_Win_lock}); an exclusive lock excludes every other lock on it. */
    void lock(LockType type, int rank);

    /** {@link #lock} with {@link Assertion#NOCHECK} ({@link ErrorClass#ASSERT} for others): no conflicting lock exists, none is taken. */
    void lock(LockType type, int rank, Assertion... assertions);

    /** Closes the epoch of {@link #lock}: its accesses are complete at origin and target ({@code MPI_Win_unlock}). */
    void unlock(int rank);

    /** A shared lock on every rank of the window ({@code MPI_Win_lock_all}). */
    void lockAll();

    /** {@link #lockAll} with {@link Assertion#NOCHECK} ({@link ErrorClass#ASSERT} for others). */
    void lockAll(Assertion... assertions);

    /** Closes the epoch of {@link #lockAll} ({@code MPI_Win_unlock_all}). */
    void unlockAll();

    /** Completes this rank's accesses to {@code rank} at origin and target, inside a lock epoch ({@code MPI_Win_flush}). */
    void flush(int rank);

    /**
     * {@link #flush} of every rank this rank holds a lock on ({@code MPI_Win_flush_all}): after a
     * {@link #lockAll} every rank, after {@link #lock}s the ranks locked; the others are left alone.
     *
     * @throws LockstepException {@link ErrorClass#RMA_SYNC} if this rank holds no lock on the window
     */
    void flushAll();

    /**
     * Completes this rank's accesses to {@code rank} at this origin only, inside a lock epoch
     * ({@code MPI_Win_flush_local}): origin buffers of its puts and accumulates may be reused, its
     * gets' buffers are filled; the target may not have the puts yet.
     */
    void flushLocal(int rank);

    /** {@link #flushLocal} of every rank this rank holds a lock on ({@code MPI_Win_flush_local_all}), as {@link #flushAll} chooses them. */
    void flushLocalAll();

    /** Makes this rank's stores to its window memory and the window's copy agree ({@code MPI_Win_sync}): a full memory fence. */
    void sync();

    /**
     * Collective: waits until no rank accesses the window, then releases it ({@code MPI_Win_free});
     * later calls fail with {@link ErrorClass#WIN}. Memory given to {@link Communicator#createWindow}
     * stays the caller's.
     *
     * @throws LockstepException {@link ErrorClass#RMA_SYNC} if this rank is still inside an epoch
     */
    void free();

    /** {@link #free}. */
    @Override
    default void close() {
        free();
    }
}
