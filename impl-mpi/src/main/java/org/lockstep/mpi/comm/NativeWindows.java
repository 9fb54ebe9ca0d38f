package org.lockstep.mpi.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Window;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.mpi.binding.MpiErrors;
import org.lockstep.mpi.binding.NativeMemory;
import org.lockstep.spi.window.WindowFactory;

/**
 * Windows of provider {@code mpi} (and of the hybrid provider, over its native part): native
 * {@code MPI_Win}s ({@link NativeWindow}) made with {@code MPI_Win_allocate},
 * {@code MPI_Win_allocate_shared} and {@code MPI_Win_create}.
 *
 * <p>Every rank must make the same kind of window, so the ranks agree (an allreduce) on whether
 * the library made it everywhere; where it did not (a library without a one-sided component for
 * this memory, a window over heap memory, which the library cannot see), allocated and created
 * windows are the SPI's point-to-point windows, and a shared window is an error naming the
 * library's. A rank whose native window was made while another's was not keeps it unfreed: its
 * free is collective over ranks that have none.
 */
public final class NativeWindows implements WindowFactory {
    /**
     * Native parts are whole multiples of this many bytes. MPICH 4.0.2 lays out the parts of an
     * allocated window in one shared segment at 16-byte steps but reaches a peer's part as if they
     * were packed: with 40-byte parts, rank 0's put to rank 1 lands 8 bytes off (a C program shows
     * it; sizes that are multiples of 16 are right). The extents the SPI checks stay the sizes asked for.
     */
    private static final long PART_GRANULE = 64;

    private final MpiCommunicator nativeComm;

    /** Windows made on {@code nativeComm}, whose ranks are those of the communicators the windows are asked of. */
    public NativeWindows(MpiCommunicator nativeComm) {
        this.nativeComm = nativeComm;
    }

    @Override
    public Window allocate(Communicator comm, long byteSize, int dispUnit, Info hints) {
        Made made = make(comm, out -> (int) Mpi.WIN_ALLOCATE.invokeExact(padded(byteSize), 1, Mpi.ABI.infoNull(), nativeComm.handle(), out,
                out.asSlice(8)), "MPI_Win_allocate");
        if (made.failure() != null) {
            return POINT_TO_POINT.allocate(comm, byteSize, dispUnit, hints);
        }
        return new NativeWindow(nativeComm, made.win(), made.base().reinterpret(byteSize), dispUnit, false);
    }

    @Override
    public Window allocateShared(Communicator comm, long byteSize, int dispUnit, Info hints) {
        Made made = make(comm, out -> (int) Mpi.WIN_ALLOCATE_SHARED.invokeExact(padded(byteSize), 1, Mpi.ABI.infoNull(), nativeComm.handle(),
                out, out.asSlice(8)), "MPI_Win_allocate_shared");
        if (made.failure() != null) {
            throw new LockstepException(ErrorClass.UNSUPPORTED_OPERATION, "a shared window needs ranks that share memory, as "
                    + Mpi.ABI.name() + " sees them: " + made.failure());
        }
        return new NativeWindow(nativeComm, made.win(), made.base().reinterpret(byteSize), dispUnit, true);
    }

    @Override
    public Window create(Communicator comm, MemorySegment base, int dispUnit, Info hints) {
        if (!Mpi.ABI.windowsOverCallerMemory() || !everywhere(comm, base.isNative())) {
            return POINT_TO_POINT.create(comm, base, dispUnit, hints);
        }
        Made made = make(comm, out -> (int) Mpi.WIN_CREATE.invokeExact(base, base.byteSize(), 1, Mpi.ABI.infoNull(), nativeComm.handle(),
                out.asSlice(8)), "MPI_Win_create");
        if (made.failure() != null) {
            return POINT_TO_POINT.create(comm, base, dispUnit, hints);
        }
        return new NativeWindow(nativeComm, made.win(), base, dispUnit, false);
    }

    private static long padded(long byteSize) {
        return Math.max(PART_GRANULE, (byteSize + PART_GRANULE - 1) / PART_GRANULE * PART_GRANULE);
    }

    /** {@code MPI_Win_free} of {@code win}, made on {@code nativeComm}. */
    static void free(MpiCommunicator nativeComm, long win) {
        NativeCommunicators.freeHandle(nativeComm, win, Mpi.WIN_FREE, "MPI_Win_free");
    }

    /** A window the library made (its handle, this rank's base), or why it did not at some rank. */
    private record Made(long win, MemorySegment base, String failure) {
    }

    /** A window-making call: {@code out} takes the base address at 0 and the window handle at 8. */
    @FunctionalInterface
    private interface Creation {
        int invoke(MemorySegment out) throws Throwable;
    }

    /** Collective over {@code comm}: {@code creation}, and whether it succeeded at every rank. */
    private Made make(Communicator comm, Creation creation, String name) {
        MemorySegment out = NativeMemory.allocate(16);
        try {
            out.fill((byte) 0);
            int rc = nativeComm.session().blockingCall(() -> creation.invoke(out));
            boolean madeHere = rc == 0;
            if (!everywhere(comm, madeHere)) {
                return new Made(0, null, madeHere ? "another rank's " + name + " failed" : MpiErrors.exception(rc, name).getMessage());
            }
            long win = Mpi.ABI.readHandle(out, 8);
            // a window's errors are fatal by default: they must come back as error codes, as the communicators' do
            nativeComm.call(() -> (int) Mpi.WIN_SET_ERRHANDLER.invokeExact(win, Mpi.ABI.errorsReturn()), "MPI_Win_set_errhandler");
            return new Made(win, out.get(ValueLayout.ADDRESS, 0), null);
        } finally {
            NativeMemory.free(out);
        }
    }

    /** Collective over {@code comm}: whether {@code here} holds at every rank. */
    private static boolean everywhere(Communicator comm, boolean here) {
        int[] all = new int[1];
        comm.allreduce(MemorySegment.ofArray(new int[] {here ? 1 : 0}), MemorySegment.ofArray(all), 1, Datatype.INT, Op.MIN);
        return all[0] == 1;
    }
}
