package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.Window;
import org.lockstep.spi.messaging.ArgumentChecks;
import org.lockstep.spi.messaging.CompletedRequest;

/**
 * Base class of a provider's windows: every public method is a {@code final} template that checks
 * its arguments and epoch once for every provider ({@link Epochs}) and then calls a protected
 * {@code impl…} hook that sees a valid target, a byte offset inside the target's part, contiguous
 * bytes and, for the accumulating calls, a predefined element type and operation.
 */
public abstract class AbstractWindow implements Window {
    private final Group group;
    private final int rank;
    private final MemorySegment segment;
    private final int dispUnit;
    private final WindowExtents extents;
    private final Epochs epochs;
    private boolean freed;
    /** Targets this rank locked with NOCHECK (nothing taken: their unlock completes the accesses only). */
    private final boolean[] uncheckedLocks;
    private static final Assertion[] NO_ASSERTIONS = {};
    /** The ranks of the open start and post epochs. */
    private int[] startedGroup;
    private int[] postedGroup;

    protected AbstractWindow(Communicator comm, MemorySegment segment, int dispUnit, WindowExtents extents) {
        this.group = comm.group();
        this.rank = comm.rank();
        this.segment = segment;
        this.dispUnit = dispUnit;
        this.extents = extents;
        this.epochs = new Epochs(comm.size());
        this.uncheckedLocks = new boolean[comm.size()];
    }

    @Override
    public final Group group() {
        checkOpen();
        return group;
    }

    @Override
    public final MemorySegment segment() {
        checkOpen();
        return segment;
    }

    @Override
    public final int dispUnit() {
        return dispUnit;
    }

    /** This rank's number in the window's group. */
    protected final int rank() {
        return rank;
    }

    @Override
    public final MemorySegment sharedQuery(int target) {
        checkOpen();
        checkRank(target);
        return implSharedQuery(target);
    }

    @Override
    public final void put(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        long reach = checkTransfer(origin, count, type, false);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, reach);
            if (type.isContiguous()) {
                implPut(target, at, origin.asSlice(0, reach));
            } else {
                type.forEachPiece(count, (offset, length) -> implPut(target, at + offset, origin.asSlice(offset, length)));
            }
        }
    }

    @Override
    public final void get(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        long reach = checkTransfer(origin, count, type, true);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, reach);
            if (type.isContiguous()) {
                implGet(target, at, origin.asSlice(0, reach));
            } else {
                type.forEachPiece(count, (offset, length) -> implGet(target, at + offset, origin.asSlice(offset, length)));
            }
        }
    }

    @Override
    public final void accumulate(MemorySegment origin, long count, Datatype type, int target, long targetDisp, Op op) {
        long reach = checkTransfer(origin, count, type, false);
        Datatype element = WindowArguments.checkOp(type, op);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, reach);
            if (type.isContiguous()) {
                implAccumulate(target, at, origin.asSlice(0, reach), element, op, null);
            } else {
                type.forEachPiece(count, (offset, length) -> implAccumulate(target, at + offset, origin.asSlice(offset, length),
                        element, op, null));
            }
        }
    }

    @Override
    public final void getAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long targetDisp, Op op) {
        long reach = checkTransfer(result, count, type, true);
        Datatype element = WindowArguments.checkOp(type, op);
        MemorySegment in = op == Op.NO_OP ? MemorySegment.ofArray(new byte[(int) Math.min(reach, Integer.MAX_VALUE)])
                : origin.asSlice(0, WindowArguments.reachOf(ArgumentChecks.checkBuffer(origin, count, type, false), count, type));
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, reach);
            if (type.isContiguous()) {
                implAccumulate(target, at, in, element, op, result.asSlice(0, reach));
            } else {
                type.forEachPiece(count, (offset, length) -> implAccumulate(target, at + offset, in.asSlice(offset, length),
                        element, op, result.asSlice(offset, length)));
            }
        }
    }

    @Override
    public final void fetchAndOp(MemorySegment origin, MemorySegment result, Datatype type, int target, long targetDisp, Op op) {
        getAccumulate(origin, result, 1, type, target, targetDisp, op);
    }

    @Override
    public final void compareAndSwap(MemorySegment origin, MemorySegment compare, MemorySegment result, Datatype type, int target, long targetDisp) {
        long bytes = checkTransfer(result, 1, type, true);
        ArgumentChecks.checkBuffer(origin, 1, type, false);
        ArgumentChecks.checkBuffer(compare, 1, type, false);
        if (!type.isPredefined() || type.kind() == Datatype.Kind.FLOAT || type.kind() == Datatype.Kind.DOUBLE || type.kind() == Datatype.Kind.PAIR) {
            throw new LockstepException(ErrorClass.TYPE, "compareAndSwap takes an integer, character, byte or boolean type, not " + type);
        }
        if (target != Communicator.PROC_NULL) {
            implCompareAndSwap(target, checkAccess(target, targetDisp, bytes), origin.asSlice(0, bytes), compare.asSlice(0, bytes),
                    result.asSlice(0, bytes));
        }
    }

    @Override
    public final Request rput(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        return locally("rput", target, () -> put(origin, count, type, target, targetDisp));
    }

    @Override
    public final Request rget(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        return locally("rget", target, () -> get(origin, count, type, target, targetDisp));
    }

    @Override
    public final Request raccumulate(MemorySegment origin, long count, Datatype type, int target, long targetDisp, Op op) {
        return locally("raccumulate", target, () -> accumulate(origin, count, type, target, targetDisp, op));
    }

    @Override
    public final Request rgetAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long targetDisp,
                                        Op op) {
        return locally("rgetAccumulate", target, () -> getAccumulate(origin, result, count, type, target, targetDisp, op));
    }

    /** A request-based {@code access} to {@code target}: only inside a lock on it (MPI 4.1 §12.3.5). */
    private Request locally(String call, int target, Runnable access) {
        checkOpen();
        if (target == Communicator.PROC_NULL) {
            access.run();
            return CompletedRequest.of(Status.empty());
        }
        checkRank(target);
        if (!epochs.isLocked(target)) {
            throw Epochs.sync(call + " to rank " + target + " outside a passive-target epoch on it (request-based accesses need"
                    + " lock or lockAll)");
        }
        return implRequest(target, access);
    }

    @Override
    public final void fence() {
        fence(NO_ASSERTIONS);
    }

    @Override
    public final void fence(Assertion... assertions) {
        checkOpen();
        int given = WindowArguments.assertions(assertions, "fence", WindowArguments.FENCE_TAKES);
        boolean noPrecede = (given & WindowArguments.NOPRECEDE) != 0;
        boolean noSucceed = (given & WindowArguments.NOSUCCEED) != 0;
        epochs.fence(noPrecede, noSucceed);
        implFence(noPrecede, noSucceed);
    }

    @Override
    public final void post(Group origins) {
        post(origins, NO_ASSERTIONS);
    }

    @Override
    public final void post(Group origins, Assertion... assertions) {
        checkOpen();
        WindowArguments.assertions(assertions, "post", WindowArguments.POST_TAKES); // post sends its frames whatever they promise
        int[] ranks = WindowArguments.ranksOf(group, origins);
        epochs.post(ranks);
        postedGroup = ranks;
        implPost(ranks);
    }

    @Override
    public final void start(Group targets) {
        start(targets, NO_ASSERTIONS);
    }

    @Override
    public final void start(Group targets, Assertion... assertions) {
        checkOpen();
        boolean noCheck = WindowArguments.assertions(assertions, "start", WindowArguments.START_OR_LOCK_TAKES) != 0;
        int[] ranks = WindowArguments.ranksOf(group, targets);
        epochs.start(ranks);
        startedGroup = ranks;
        try {
            implStart(ranks, noCheck);
        } catch (RuntimeException e) {
            // a start that failed opened nothing: the window can still be fenced or freed
            epochs.complete();
            startedGroup = null;
            throw e;
        }
    }

    @Override
    public final void complete() {
        checkOpen();
        epochs.complete();
        int[] ranks = startedGroup;
        startedGroup = null;
        implComplete(ranks);
    }

    @Override
    public final void waitExposure() {
        checkOpen();
        epochs.waitExposure();
        int[] ranks = postedGroup;
        postedGroup = null;
        implWaitExposure(ranks);
    }

    @Override
    public final void lock(LockType type, int target) {
        lock(type, target, NO_ASSERTIONS);
    }

    @Override
    public final void lock(LockType type, int target, Assertion... assertions) {
        checkOpen();
        if (type == null) {
            throw new LockstepException(ErrorClass.ARG, "lock type is null");
        }
        boolean noCheck = WindowArguments.assertions(assertions, "lock", WindowArguments.START_OR_LOCK_TAKES) != 0;
        checkRank(target);
        epochs.lock(type, target);
        try {
            implLock(type, target, noCheck);
            uncheckedLocks[target] = noCheck;
        } catch (RuntimeException e) {
            epochs.unlock(target); // not granted: nothing to unlock
            throw e;
        }
    }

    @Override
    public final void unlock(int target) {
        checkOpen();
        checkRank(target);
        epochs.unlock(target);
        implUnlock(target, uncheckedLocks[target]);
    }

    @Override
    public final void lockAll() {
        lockAll(NO_ASSERTIONS);
    }

    @Override
    public final void lockAll(Assertion... assertions) {
        checkOpen();
        boolean noCheck = WindowArguments.assertions(assertions, "lockAll", WindowArguments.START_OR_LOCK_TAKES) != 0;
        epochs.lockAll();
        for (int r = 0; r < group.size(); r++) {
            implLock(LockType.SHARED, r, noCheck);
            uncheckedLocks[r] = noCheck;
        }
    }

    @Override
    public final void unlockAll() {
        checkOpen();
        epochs.unlockAll();
        for (int r = 0; r < group.size(); r++) {
            implUnlock(r, uncheckedLocks[r]);
        }
    }

    @Override
    public final void flush(int target) {
        checkOpen();
        checkRank(target);
        epochs.checkLocked(target);
        implFlush(target);
    }

    @Override
    public final void flushAll() {
        checkOpen();
        epochs.checkPassive("flushAll");
        for (int r = 0; r < group.size(); r++) {
            if (epochs.isLocked(r)) {
                implFlush(r);
            }
        }
    }

    @Override
    public final void flushLocal(int target) {
        checkOpen();
        checkRank(target);
        epochs.checkLocked(target);
        implFlushLocal(target);
    }

    @Override
    public final void flushLocalAll() {
        checkOpen();
        epochs.checkPassive("flushLocalAll");
        for (int r = 0; r < group.size(); r++) {
            if (epochs.isLocked(r)) {
                implFlushLocal(r);
            }
        }
    }

    @Override
    public final void sync() {
        checkOpen();
        VarHandle.fullFence();
    }

    @Override
    public final void free() {
        if (freed) {
            return;
        }
        epochs.checkClosed();
        freed = true;
        implFree();
    }

    // ---- hooks ----

    /** The shared part of {@code target} (a rank); the default: only a window of one rank shares its part. */
    protected MemorySegment implSharedQuery(int target) {
        if (group.size() == 1) {
            return segment;
        }
        throw new LockstepException(ErrorClass.WIN, "the window is not shared (allocateSharedWindow makes one)");
    }

    protected abstract void implPut(int target, long byteOffset, MemorySegment data);

    /** Reads into {@code destination} by the end of the epoch. */
    protected abstract void implGet(int target, long byteOffset, MemorySegment destination);

    /** {@code target[i] = data[i] op target[i]} atomically per element; with a {@code result}, the old elements go there. */
    protected abstract void implAccumulate(int target, long byteOffset, MemorySegment data, Datatype element, Op op, MemorySegment result);

    protected abstract void implCompareAndSwap(int target, long byteOffset, MemorySegment origin, MemorySegment compare, MemorySegment result);

    protected abstract void implFence();

    /**
     * A fence with assertions: with {@code noPrecede} no rank has accesses to complete, with
     * {@code noSucceed} none will access before the next synchronisation. By default a
     * {@link #implFence}, which waits for everything anyway.
     */
    protected void implFence(boolean noPrecede, boolean noSucceed) {
        implFence();
    }

    protected abstract void implPost(int[] origins);

    protected abstract void implStart(int[] targets);

    /** A start; with {@code noCheck} the targets have posted already. By default a {@link #implStart}, which waits for the posts anyway. */
    protected void implStart(int[] targets, boolean noCheck) {
        implStart(targets);
    }

    protected abstract void implComplete(int[] targets);

    protected abstract void implWaitExposure(int[] origins);

    protected abstract void implLock(LockType type, int target);

    protected abstract void implUnlock(int target);

    /** A lock; with {@code noCheck} no conflicting lock exists. By default a {@link #implLock}, taken anyway. */
    protected void implLock(LockType type, int target, boolean noCheck) {
        implLock(type, target);
    }

    /** The unlock of {@link #implLock(LockType, int, boolean)}'s lock, told whether it was taken {@code noCheck}. */
    protected void implUnlock(int target, boolean noCheck) {
        implUnlock(target);
    }

    protected abstract void implFlush(int target);

    /**
     * Runs {@code access} (one put, get or accumulate to {@code target}) and returns a request that
     * completes when it is complete at this origin; by default the access is completed before the
     * request is returned ({@link #implFlushLocal}).
     */
    protected Request implRequest(int target, Runnable access) {
        access.run();
        implFlushLocal(target);
        return CompletedRequest.of(Status.empty());
    }

    /** Completes this rank's accesses to {@code target} at this origin; by default a {@link #implFlush}, which completes them at both. */
    protected void implFlushLocal(int target) {
        implFlush(target);
    }

    /** Collective: waits until no rank accesses the window, then releases what it holds. */
    protected abstract void implFree();

    // ---- checks ----

    private void checkOpen() {
        if (freed) {
            throw new LockstepException(ErrorClass.WIN, "the window has been freed");
        }
    }

    private void checkRank(int target) {
        if (target < 0 || target >= group.size()) {
            throw new LockstepException(ErrorClass.RANK, "rank " + target + " is outside the window's group [0, " + group.size() + ")");
        }
    }

    /** The bytes a transfer of {@code count} elements reaches from the buffer's start (its data's length for a contiguous type, the span of its pieces for another). */
    private long checkTransfer(MemorySegment buffer, long count, Datatype type, boolean writable) {
        checkOpen();
        return WindowArguments.reachOf(ArgumentChecks.checkBuffer(buffer, count, type, writable), count, type);
    }

    /** The byte offset of an access of {@code bytes} at {@code disp} in {@code target}'s part, checked for range and epoch. */
    private long checkAccess(int target, long disp, long bytes) {
        checkRank(target);
        long offset = extents.byteOffset(target, disp, bytes);
        epochs.checkAccess(target);
        return offset;
    }
}
