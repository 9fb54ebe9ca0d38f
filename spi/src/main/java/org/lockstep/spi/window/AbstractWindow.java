package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Group;
import org.lockstep.api.LockstepException;

/**
 * Base class of a provider's windows: every public method is a {@code final} template that checks
 * its arguments and epoch once for every provider ({@link Epochs}) and then calls a protected
 * {@code impl…} hook. The accesses' templates and hooks are {@link AbstractWindowAccesses}'; here
 * are the synchronisation calls', each told the assertions that let it skip work, with defaults
 * that ignore them.
 */
public abstract class AbstractWindow extends AbstractWindowAccesses {
    /** Targets this rank locked with NOCHECK (nothing taken: their unlock completes the accesses only). */
    private final boolean[] uncheckedLocks;
    private static final Assertion[] NO_ASSERTIONS = {};
    /** The ranks of the open start and post epochs. */
    private int[] startedGroup;
    private int[] postedGroup;

    protected AbstractWindow(Communicator comm, MemorySegment segment, int dispUnit, WindowExtents extents) {
        super(comm, segment, dispUnit, extents);
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

    @Override
    public final MemorySegment sharedQuery(int target) {
        checkOpen();
        checkRank(target);
        return implSharedQuery(target);
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
        checkOpen();
        lockChecked(type, target, false);
    }

    @Override
    public final void lock(LockType type, int target, Assertion... assertions) {
        checkOpen();
        lockChecked(type, target, WindowArguments.assertions(assertions, "lock", WindowArguments.START_OR_LOCK_TAKES) != 0);
    }

    private void lockChecked(LockType type, int target, boolean noCheck) {
        if (type == null) {
            throw new LockstepException(ErrorClass.ARG, "lock type is null");
        }
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

    /** Completes this rank's accesses to {@code target} at this origin; by default a {@link #implFlush}, which completes them at both. */
    @Override
    protected void implFlushLocal(int target) {
        implFlush(target);
    }

    /** Collective: waits until no rank accesses the window, then releases what it holds. */
    protected abstract void implFree();
}
