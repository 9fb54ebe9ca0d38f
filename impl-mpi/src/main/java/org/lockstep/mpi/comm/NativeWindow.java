package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.NativeMemory;
import org.lockstep.spi.messaging.CompletedRequest;
import org.lockstep.spi.window.PointToPointWindow;

/**
 * A window that is a native {@code MPI_Win} ({@link NativeWindows} makes it): puts, gets,
 * accumulates, compare-and-swap, locks and flushes are the library's calls, so a passive target
 * needs to do nothing, and the library moves the data (shared memory within a host, its own
 * one-sided protocol between hosts). The native window has displacement unit 1: the SPI's
 * templates pass byte offsets, checked against every rank's extent before the library sees them.
 *
 * <p>Synchronisation keeps the frames of {@link PointToPointWindow} in front of the native calls:
 * a fence, start or wait first matches the peers' frames, so that a rank meeting a fence with a
 * post (erroneous in MPI, where the native calls would wait for ever) fails with
 * {@code RMA_SYNC} instead of hanging; then the native call completes the epoch. Post and complete
 * send their frames after the native call, so a peer that has the frame finds the native epoch open
 * (or closed).
 *
 * <p>Heap buffers go through {@link RmaStaging} until their epoch completes at this origin.
 */
final class NativeWindow extends PointToPointWindow {
    private final MpiCommunicator nativeComm;
    private final long win;
    private final boolean shared;
    private final NativeTypes types;
    private final RmaStaging staging = new RmaStaging();

    /**
     * Collective over {@code nativeComm}: the window {@code win}, made on it, over {@code memory}, this
     * rank's part. The frames go over native MPI too (a duplicate of {@code nativeComm}, whatever
     * communicator the window was asked of), so that every wait of the window makes MPI progress: a
     * library may grant a lock or apply an access only while its target is inside MPI (MPICH's
     * windows within a host do).
     */
    NativeWindow(MpiCommunicator nativeComm, long win, MemorySegment memory, int dispUnit, boolean shared) {
        super(nativeComm, memory, dispUnit, false);
        this.nativeComm = nativeComm;
        this.win = win;
        this.shared = shared;
        this.types = nativeComm.session().types();
    }

    // ---------------------------------------------------------------- accesses

    @Override
    protected void implPut(int target, long byteOffset, MemorySegment data) {
        transfer(Mpi.PUT, "MPI_Put", staging.source(target, data), target, byteOffset);
    }

    @Override
    protected void implGet(int target, long byteOffset, MemorySegment destination) {
        transfer(Mpi.GET, "MPI_Get", staging.destination(target, destination), target, byteOffset);
    }

    /** {@code MPI_Put} or {@code MPI_Get} ({@code call}) of {@code buffer}'s bytes at {@code byteOffset} of {@code target}'s part. */
    private void transfer(MethodHandle call, String name, MemorySegment buffer, int target, long byteOffset) {
        long bytes = types.bytes();
        inPieces(buffer.byteSize(), 1, (offset, n) -> call(() -> (int) call.invokeExact(buffer.asSlice(offset), n, bytes, target,
                byteOffset + offset, n, bytes, win), name));
    }

    @Override
    protected void implAccumulate(int target, long byteOffset, MemorySegment data, Datatype element, Op op, MemorySegment result) {
        long type = types.forReduction(element, op);
        long nativeOp = types.oneSidedOp(op, element);
        MemorySegment in = staging.source(target, data);
        MemorySegment out = result == null ? null : staging.destination(target, result);
        inPieces(data.byteSize(), (int) element.size(), (offset, n) -> {
            if (out == null) {
                call(() -> (int) Mpi.ACCUMULATE.invokeExact(in.asSlice(offset), n, type, target, byteOffset + offset, n, type, nativeOp, win),
                        "MPI_Accumulate");
            } else {
                call(() -> (int) Mpi.GET_ACCUMULATE.invokeExact(in.asSlice(offset), n, type, out.asSlice(offset), n, type, target,
                        byteOffset + offset, n, type, nativeOp, win), "MPI_Get_accumulate");
            }
        });
    }

    @Override
    protected void implCompareAndSwap(int target, long byteOffset, MemorySegment origin, MemorySegment compare, MemorySegment result) {
        // compared and swapped as bits: the integer type of the element's width
        long type = types.of(switch ((int) origin.byteSize()) {
            case 1 -> Datatype.BYTE;
            case 2 -> Datatype.SHORT;
            case 4 -> Datatype.INT;
            case 8 -> Datatype.LONG;
            default -> throw new LockstepException(ErrorClass.TYPE, "compareAndSwap of a " + origin.byteSize() + "-byte element");
        });
        MemorySegment in = staging.source(target, origin);
        MemorySegment expected = staging.source(target, compare);
        MemorySegment out = staging.destination(target, result);
        call(() -> (int) Mpi.COMPARE_AND_SWAP.invokeExact(in, expected, out, type, target, byteOffset, win), "MPI_Compare_and_swap");
    }

    @Override
    protected MemorySegment implSharedQuery(int target) {
        if (!shared) {
            return super.implSharedQuery(target);
        }
        MemorySegment out = NativeMemory.allocate(24); // size at 0, displacement unit at 8, base at 16
        try {
            call(() -> (int) Mpi.WIN_SHARED_QUERY.invokeExact(win, target, out, out.asSlice(8), out.asSlice(16)), "MPI_Win_shared_query");
            return out.get(ValueLayout.ADDRESS, 16).reinterpret(partSize(target)); // the size asked for, not the padded one
        } finally {
            NativeMemory.free(out);
        }
    }

    // ---------------------------------------------------------------- synchronisation

    @Override
    protected void implFence() {
        super.implFence(); // every rank is in this fence (or the mismatch is an error): the native one cannot wait for ever
        call(() -> (int) Mpi.WIN_FENCE.invokeExact(0, win), "MPI_Win_fence");
        staging.completed(RmaStaging.ALL_TARGETS);
    }

    @Override
    protected void implPost(int[] origins) {
        NativeCommunicators.withGroup(nativeComm, nativeComm.handle(), origins,
                group -> call(() -> (int) Mpi.WIN_POST.invokeExact(group, 0, win), "MPI_Win_post"));
        super.implPost(origins);
    }

    @Override
    protected void implStart(int[] targets) {
        super.implStart(targets); // every target has posted natively
        NativeCommunicators.withGroup(nativeComm, nativeComm.handle(), targets,
                group -> call(() -> (int) Mpi.WIN_START.invokeExact(group, 0, win), "MPI_Win_start"));
    }

    @Override
    protected void implComplete(int[] targets) {
        call(() -> (int) Mpi.WIN_COMPLETE.invokeExact(win), "MPI_Win_complete");
        staging.completed(RmaStaging.ALL_TARGETS);
        super.implComplete(targets);
    }

    @Override
    protected void implWaitExposure(int[] origins) {
        super.implWaitExposure(origins); // every origin has completed natively
        call(() -> (int) Mpi.WIN_WAIT.invokeExact(win), "MPI_Win_wait");
    }

    @Override
    protected void implLock(LockType type, int target) {
        implLock(type, target, false);
    }

    @Override
    protected void implUnlock(int target) {
        call(() -> (int) Mpi.WIN_UNLOCK.invokeExact(target, win), "MPI_Win_unlock");
        staging.completed(target);
    }

    @Override
    protected void implFlush(int target) {
        call(() -> (int) Mpi.WIN_FLUSH.invokeExact(target, win), "MPI_Win_flush");
        staging.completed(target);
    }

    /**
     * Completes this rank's accesses to {@code target} here by {@code MPI_Win_flush}, which completes
     * them at both sides: MPICH 4.0.2's {@code MPI_Win_flush_local} returned before a get under a
     * shared lock had filled its buffer (kit RMA.11: 0 where the target held 50).
     */
    @Override
    protected void implFlushLocal(int target) {
        implFlush(target);
    }

    /** A request-based access: the access, completed here at once, as {@code MPI_Rput} and co. allow. */
    @Override
    protected Request implRequest(int target, Runnable access) {
        access.run();
        implFlushLocal(target);
        return CompletedRequest.of(Status.empty());
    }

    /** The native lock; with {@code noCheck}, {@code MPI_MODE_NOCHECK} (the library may then take nothing). */
    @Override
    protected void implLock(LockType type, int target, boolean noCheck) {
        int lockType = type == LockType.EXCLUSIVE ? Mpi.ABI.lockExclusive() : Mpi.ABI.lockShared();
        int assertion = noCheck ? Mpi.ABI.modeNoCheck() : 0;
        call(() -> (int) Mpi.WIN_LOCK.invokeExact(lockType, target, assertion, win), "MPI_Win_lock");
    }

    @Override
    protected void implUnlock(int target, boolean noCheck) {
        implUnlock(target);
    }

    /** Assertions change nothing here: the frames and the native fence run in full. */
    @Override
    protected void implFence(boolean noPrecede, boolean noSucceed) {
        implFence();
    }

    /** With NOCHECK too the posts' frames are awaited: they were sent before (the assertion says so), so this does not wait long. */
    @Override
    protected void implStart(int[] targets, boolean noCheck) {
        implStart(targets);
    }

    /** After the free frames (every rank is freeing): {@code MPI_Win_free}, which frees allocated memory too. */
    @Override
    protected void implRelease() {
        NativeWindows.free(nativeComm, win);
        staging.completed(RmaStaging.ALL_TARGETS);
    }

    // ---------------------------------------------------------------- helpers

    private void call(ThreadGuard.NativeCall body, String name) {
        nativeComm.call(body, name);
    }

    /** Runs {@code body} over pieces of {@code bytes} of at most {@code Integer.MAX_VALUE} elements of {@code unit} bytes. */
    private static void inPieces(long bytes, int unit, Piece body) {
        long most = (Integer.MAX_VALUE / unit) * (long) unit;
        for (long done = 0; done < bytes; done += most) {
            body.run(done, (int) (Math.min(most, bytes - done) / unit));
        }
    }

    @FunctionalInterface
    private interface Piece {
        /** A piece at byte {@code offset} of {@code count} elements. */
        void run(long offset, int count);
    }
}
