package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;

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
 * The access half of {@link AbstractWindow}'s templates (put, get, the accumulates, their
 * request-based forms) with the window's state and checks: each template checks its arguments,
 * range and epoch once for every provider and calls a protected {@code impl…} hook that sees a
 * valid target, a byte offset inside the target's part, contiguous bytes (a derived type's
 * pieces one by one, cut to match where origin and target types differ) and, for the
 * accumulating calls, a predefined element type and operation.
 */
public abstract class AbstractWindowAccesses implements Window {
    final Group group;
    private final int rank;
    final MemorySegment segment;
    final int dispUnit;
    private final WindowExtents extents;
    final Epochs epochs;
    boolean freed;

    AbstractWindowAccesses(Communicator comm, MemorySegment segment, int dispUnit, WindowExtents extents) {
        this.group = comm.group();
        this.rank = comm.rank();
        this.segment = segment;
        this.dispUnit = dispUnit;
        this.extents = extents;
        this.epochs = new Epochs(comm.size());
    }

    /** This rank's number in the window's group. */
    protected final int rank() {
        return rank;
    }

    /** Bytes of rank {@code r}'s part, as agreed at creation. */
    protected final long partSize(int r) {
        return extents.size(r);
    }

    @Override
    public final void put(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        put(origin, count, type, target, targetDisp, count, type);
    }

    @Override
    public final void put(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp, long targetCount,
                          Datatype targetType) {
        long reach = checkTransfer(origin, originCount, originType, false);
        long targetReach = checkTargetLayout(reach, originCount, originType, targetCount, targetType);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, targetReach);
            if (originType.isContiguous() && targetType.isContiguous()) {
                implPut(target, at, origin.asSlice(0, reach));
            } else {
                TypedPieces.forEach(new long[] {originCount, targetCount}, new Datatype[] {originType, targetType},
                        (offsets, length) -> implPut(target, at + offsets[1], origin.asSlice(offsets[0], length)));
            }
        }
    }

    @Override
    public final void get(MemorySegment origin, long count, Datatype type, int target, long targetDisp) {
        get(origin, count, type, target, targetDisp, count, type);
    }

    @Override
    public final void get(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp, long targetCount,
                          Datatype targetType) {
        long reach = checkTransfer(origin, originCount, originType, true);
        long targetReach = checkTargetLayout(reach, originCount, originType, targetCount, targetType);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, targetReach);
            if (originType.isContiguous() && targetType.isContiguous()) {
                implGet(target, at, origin.asSlice(0, reach));
            } else {
                TypedPieces.forEach(new long[] {originCount, targetCount}, new Datatype[] {originType, targetType},
                        (offsets, length) -> implGet(target, at + offsets[1], origin.asSlice(offsets[0], length)));
            }
        }
    }

    @Override
    public final void accumulate(MemorySegment origin, long count, Datatype type, int target, long targetDisp, Op op) {
        accumulate(origin, count, type, target, targetDisp, count, type, op);
    }

    @Override
    public final void accumulate(MemorySegment origin, long originCount, Datatype originType, int target, long targetDisp,
                                 long targetCount, Datatype targetType, Op op) {
        long reach = checkTransfer(origin, originCount, originType, false);
        long targetReach = checkTargetLayout(reach, originCount, originType, targetCount, targetType);
        Datatype element = WindowArguments.checkOp(targetType, op);
        WindowArguments.checkOp(originType, op);
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, targetReach);
            if (originType.isContiguous() && targetType.isContiguous()) {
                implAccumulate(target, at, origin.asSlice(0, reach), element, op, null);
            } else {
                TypedPieces.forEach(new long[] {originCount, targetCount}, new Datatype[] {originType, targetType},
                        (offsets, length) -> implAccumulate(target, at + offsets[1], origin.asSlice(offsets[0], length), element, op, null));
            }
        }
    }

    @Override
    public final void getAccumulate(MemorySegment origin, MemorySegment result, long count, Datatype type, int target, long targetDisp, Op op) {
        getAccumulate(origin, count, type, result, count, type, target, targetDisp, count, type, op);
    }

    @Override
    public final void getAccumulate(MemorySegment origin, long originCount, Datatype originType, MemorySegment result, long resultCount,
                                    Datatype resultType, int target, long targetDisp, long targetCount, Datatype targetType, Op op) {
        long resultReach = checkTransfer(result, resultCount, resultType, true);
        long targetReach = checkTargetLayout(resultReach, resultCount, resultType, targetCount, targetType);
        Datatype element = WindowArguments.checkOp(targetType, op);
        WindowArguments.checkOp(resultType, op);
        MemorySegment in;
        if (op == Op.NO_OP) { // the origin is not read: zeros laid out as the result
            in = MemorySegment.ofArray(new byte[(int) Math.min(resultReach, Integer.MAX_VALUE)]);
            originCount = resultCount;
            originType = resultType;
        } else {
            long originReach = checkTransfer(origin, originCount, originType, false);
            checkTargetLayout(originReach, originCount, originType, targetCount, targetType);
            WindowArguments.checkOp(originType, op);
            in = origin.asSlice(0, originReach);
        }
        if (target != Communicator.PROC_NULL) {
            long at = checkAccess(target, targetDisp, targetReach);
            if (originType.isContiguous() && resultType.isContiguous() && targetType.isContiguous()) {
                implAccumulate(target, at, in, element, op, result.asSlice(0, resultReach));
            } else {
                TypedPieces.forEach(new long[] {originCount, resultCount, targetCount}, new Datatype[] {originType, resultType, targetType},
                        (offsets, length) -> implAccumulate(target, at + offsets[2], in.asSlice(offsets[0], length), element, op,
                                result.asSlice(offsets[1], length)));
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

    // ---- hooks ----

    protected abstract void implPut(int target, long byteOffset, MemorySegment data);

    /** Reads into {@code destination} by the end of the epoch. */
    protected abstract void implGet(int target, long byteOffset, MemorySegment destination);

    /** {@code target[i] = data[i] op target[i]} atomically per element; with a {@code result}, the old elements go there. */
    protected abstract void implAccumulate(int target, long byteOffset, MemorySegment data, Datatype element, Op op, MemorySegment result);

    protected abstract void implCompareAndSwap(int target, long byteOffset, MemorySegment origin, MemorySegment compare, MemorySegment result);

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

    /** Completes this rank's accesses to {@code target} at this origin. */
    protected abstract void implFlushLocal(int target);

    // ---- checks ----

    final void checkOpen() {
        if (freed) {
            throw new LockstepException(ErrorClass.WIN, "the window has been freed");
        }
    }

    final void checkRank(int target) {
        if (target < 0 || target >= group.size()) {
            throw new LockstepException(ErrorClass.RANK, "rank " + target + " is outside the window's group [0, " + group.size() + ")");
        }
    }

    /** The bytes a transfer of {@code count} elements reaches from the buffer's start (its data's length for a contiguous type, the span of its pieces for another). */
    private long checkTransfer(MemorySegment buffer, long count, Datatype type, boolean writable) {
        checkOpen();
        return WindowArguments.reachOf(ArgumentChecks.checkBuffer(buffer, count, type, writable), count, type);
    }

    /**
     * The bytes the target side of an access reaches in the target's part: {@code originReach} if
     * it is laid out as the origin's; otherwise its type must have the origin's signature (TYPE).
     */
    private static long checkTargetLayout(long originReach, long originCount, Datatype originType, long targetCount, Datatype targetType) {
        if (targetType == originType && targetCount == originCount) {
            return originReach;
        }
        Datatype.checkUsable(targetType);
        if (targetCount < 0) {
            throw new LockstepException(ErrorClass.COUNT, "target count " + targetCount + " is negative");
        }
        if (!originType.sameSignature(originCount, targetType, targetCount)) {
            throw new LockstepException(ErrorClass.TYPE, "the origin's " + originCount + " x " + originType + " and the target's "
                    + targetCount + " x " + targetType + " differ in type signature (MPI 4.1 §12.3)");
        }
        return WindowArguments.reachOf(targetType.byteLength(targetCount), targetCount, targetType);
    }

    /** The byte offset of an access of {@code bytes} at {@code disp} in {@code target}'s part, checked for range and epoch. */
    private long checkAccess(int target, long disp, long bytes) {
        checkRank(target);
        long offset = extents.byteOffset(target, disp, bytes);
        epochs.checkAccess(target);
        return offset;
    }
}
