package org.lockstep.pcie.window;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.pcie.layout.DeviceWindowDescriptor;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;
import org.lockstep.spi.window.PointToPointWindow;

/**
 * A window of the mailbox transport: every rank's part is device memory
 * ({@link DeviceWindowDescriptor}), so a put, get or accumulate is a copy or an update on the
 * device by the origin, with no message and nothing for the target to do; passive-target locks
 * ({@link PassiveTargetLock}), accumulate atomicity and fences are device words (compare-and-set,
 * atomic add, release and acquire), each naming its holder so that a wait on a rank that has gone fails.
 * Post-start-complete-wait and free keep the point-to-point frames of {@link PointToPointWindow}
 * (each frame is published with release and read with acquire, so an origin's copies before its
 * complete frame are visible at the target once the frame is), with a full memory fence around them.
 */
final class DeviceWindow extends PointToPointWindow {
    private final ExternalMemory device;
    private final MemorySegment buffer;
    private final boolean shared;
    /** Device offsets of every rank's part (its lock words), and the parts' bytes. */
    private final long[] headers;
    private final MemorySegment[] parts;
    /** The lock this rank holds on each target, or null. */
    private final LockType[] held;
    private final PassiveTargetLock locks;
    /** Reads of a peer's fence count, pausing between them, before a fence's wait serves frames and checks the peer. */
    private static final int FENCE_QUICK_READS = 64;
    /** The NOPRECEDE fence whose wait for each target waits for this rank's first access to it; 0 if none. */
    private long deferredFence;

    /** Collective over {@code owner}: {@code buffer} is this rank's device buffer, its first line zeroed. */
    DeviceWindow(Communicator owner, ExternalMemory device, MemorySegment buffer, long size, int dispUnit, boolean shared,
                 Supplier<IdleStrategy> backOff) {
        super(owner, buffer.asSlice(DeviceWindowDescriptor.dataOffset(owner.size()), size), dispUnit, false, backOff);
        this.device = device;
        this.buffer = buffer;
        this.shared = shared;
        int n = comm().size();
        this.headers = new long[2 * n];
        long[] mine = {buffer.address() - device.asSegment().address(), size};
        comm().allgather(MemorySegment.ofArray(mine), 2, Datatype.LONG, MemorySegment.ofArray(headers));
        this.parts = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            parts[r] = device.asSegment().asSlice(headers[2 * r] + DeviceWindowDescriptor.dataOffset(n), headers[2 * r + 1]);
        }
        this.held = new LockType[n];
        this.locks = new PassiveTargetLock(device, rank(), n);
        // a start or wait must see a peer's fence count move, which sends no frame to wake a blocking probe
        pollWhileWaiting();
    }

    @Override
    protected MemorySegment implSharedQuery(int target) {
        return shared ? parts[target] : super.implSharedQuery(target);
    }

    @Override
    protected void implPut(int target, long byteOffset, MemorySegment data) {
        awaitDeferredFence(target);
        MemorySegment.copy(data, 0, parts[target], byteOffset, data.byteSize());
    }

    @Override
    protected void implGet(int target, long byteOffset, MemorySegment destination) {
        awaitDeferredFence(target);
        MemorySegment.copy(parts[target], byteOffset, destination, 0, destination.byteSize());
    }

    @Override
    protected void implAccumulate(int target, long byteOffset, MemorySegment data, Datatype element, Op op, MemorySegment result) {
        awaitDeferredFence(target);
        MemorySegment at = parts[target].asSlice(byteOffset, data.byteSize());
        long word = headers[2 * target] + DeviceWindowDescriptor.ACCUMULATE_LOCK_OFFSET;
        acquire(word);
        try {
            if (result != null) {
                MemorySegment.copy(at, 0, result, 0, result.byteSize());
            }
            op.apply(data, at, data.byteSize() / element.size(), element);
        } finally {
            device.putLongRelease(word, 0);
        }
    }

    @Override
    protected void implCompareAndSwap(int target, long byteOffset, MemorySegment origin, MemorySegment compare, MemorySegment result) {
        awaitDeferredFence(target);
        MemorySegment at = parts[target].asSlice(byteOffset, origin.byteSize());
        long word = headers[2 * target] + DeviceWindowDescriptor.ACCUMULATE_LOCK_OFFSET;
        acquire(word);
        try {
            MemorySegment.copy(at, 0, result, 0, result.byteSize());
            if (compare.mismatch(at) == -1) {
                MemorySegment.copy(origin, 0, at, 0, origin.byteSize());
            }
        } finally {
            device.putLongRelease(word, 0);
        }
    }

    /**
     * Takes the accumulate lock at {@code word}, serving this rank's frames while another rank holds
     * it; fails if the holder (the word says which) is gone, since it would never give it back.
     */
    private void acquire(long word) {
        LockWait wait = null;
        while (!device.compareAndSetLong(word, 0, rank() + 1)) {
            long holder = device.getLongAcquire(word);
            if (holder != 0) {
                wait = wait == null ? new LockWait() : wait;
                wait.round((int) holder - 1, () -> device.getLongAcquire(word) == holder);
            }
        }
    }

    /** NOCHECK: no lock words (no other rank locks meanwhile). The words' code is here, not behind the default, to keep a lock's calls shallow. */
    @Override
    protected void implLock(LockType type, int target, boolean noCheck) {
        if (noCheck) {
            return;
        }
        if (type == LockType.EXCLUSIVE) {
            locks.lockExclusive(headers[2 * target], new LockWait());
        } else {
            locks.lockShared(headers[2 * target], new LockWait());
        }
        held[target] = type;
    }

    @Override
    protected void implLock(LockType type, int target) {
        implLock(type, target, false);
    }

    /** The unlock of a NOCHECK lock only orders this rank's accesses (a flush). */
    @Override
    protected void implUnlock(int target, boolean noCheck) {
        if (noCheck) {
            VarHandle.fullFence();
            return;
        }
        // the release store and the atomic add both order this rank's accesses before the lock is seen free
        if (held[target] == LockType.EXCLUSIVE) {
            locks.unlockExclusive(headers[2 * target]);
        } else {
            locks.unlockShared(headers[2 * target]);
        }
        held[target] = null;
    }

    @Override
    protected void implUnlock(int target) {
        implUnlock(target, false);
    }

    /** A wait for a lock's holder: serves frames, fails when the holder has gone while still holding, backs off. */
    private final class LockWait implements PassiveTargetLock.HolderWait {
        private IdleStrategy idle;

        @Override
        public void round(int holder, BooleanSupplier stillInTheWay) {
            idle = idle == null ? newIdleStrategy() : idle;
            LockstepException gone = goneError(holder); // judged first: a holder may let go and then end
            serve();
            if (gone != null && stillInTheWay.getAsBoolean()) {
                throw gone;
            }
            idle.idle();
        }
    }

    @Override
    protected void implFlush(int target) {
        VarHandle.fullFence();
    }

    /** Every access was a copy on the device, done when its call returned: locally complete already. */
    @Override
    protected void implFlushLocal(int target) {
    }

    /**
     * A barrier of the window's ranks on the device: this rank's fences word takes the fence's
     * number with release, then every rank's word must reach it. Frames are served meanwhile, so a
     * rank that posted or completed where this one fences is an RMA_SYNC error, not a hang.
     */
    @Override
    protected void implFence() {
        long epoch = publishFence();
        for (int r = 0; r < parts.length; r++) {
            awaitFence(r, epoch);
        }
        deferredFence = 0;
        VarHandle.fullFence();
    }

    /**
     * NOPRECEDE: no access of the closing epoch to wait for, so the barrier's second half is put off
     * to this rank's first access of each target (whose stores before the fence must come first).
     * A shared window's parts are loaded and stored directly, past any such check: it waits in full.
     */
    @Override
    protected void implFence(boolean noPrecede, boolean noSucceed) {
        if (!noPrecede || shared) {
            implFence();
            return;
        }
        deferredFence = publishFence();
    }

    /** Publishes this rank's next fence count (after its frames and stores) and returns it. */
    private long publishFence() {
        VarHandle.fullFence();
        completeFrames(); // a post or complete sent before this fence is in its receiver's mailbox before the count moves
        long epoch = nextFenceEpoch();
        device.putLongRelease(headers[2 * rank()] + DeviceWindowDescriptor.FENCES_OFFSET, epoch);
        return epoch;
    }

    /** Before an access after a NOPRECEDE fence: {@code target} must have made that fence. */
    private void awaitDeferredFence(int target) {
        if (deferredFence != 0 && fencesSeen(target) < deferredFence) {
            awaitFence(target, deferredFence);
            VarHandle.fullFence();
        }
    }

    /**
     * Waits until rank {@code r} has made fence {@code epoch}, serving frames and failing on a mismatch or a gone rank.
     * It reads the count alone for the first {@link #FENCE_QUICK_READS} rounds: a round that also serves frames and
     * checks the peers takes an iprobe of the transport, which a peer fencing at the same time would wait out.
     */
    private void awaitFence(int r, long epoch) {
        for (int i = 0; i < FENCE_QUICK_READS; i++) {
            if (fencesSeen(r) >= epoch) {
                return;
            }
            Thread.onSpinWait();
        }
        IdleStrategy idle = null;
        while (fencesSeen(r) < epoch) {
            idle = idle == null ? newIdleStrategy() : idle;
            LockstepException gone = goneError(r); // judged before its count is read again: it may have fenced and ended
            serve();
            checkFenceMatched(epoch);
            if (gone != null && fencesSeen(r) < epoch) {
                throw gone;
            }
            idle.idle();
        }
    }

    @Override
    protected long fencesSeen(int r) {
        return device.getLongAcquire(headers[2 * r] + DeviceWindowDescriptor.FENCES_OFFSET);
    }

    @Override
    protected void implComplete(int[] targets) {
        VarHandle.fullFence();
        super.implComplete(targets);
    }

    @Override
    protected void implWaitExposure(int[] origins) {
        super.implWaitExposure(origins);
        VarHandle.fullFence();
    }

    @Override
    protected void implRelease() {
        owner().free(buffer);
    }
}
