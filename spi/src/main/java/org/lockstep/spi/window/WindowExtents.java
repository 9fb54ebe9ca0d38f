package org.lockstep.spi.window;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * Every rank's window size and displacement unit, agreed at creation, so that an origin rejects an
 * access outside its target's part before anything is sent.
 */
public final class WindowExtents {
    private final long[] sizes;
    private final int[] dispUnits;

    private WindowExtents(long[] sizes, int[] dispUnits) {
        this.sizes = sizes;
        this.dispUnits = dispUnits;
    }

    /** Collective over {@code comm}: every rank's {@code (size, dispUnit)}. */
    public static WindowExtents exchange(Communicator comm, long size, int dispUnit) {
        MemorySegment mine = MemorySegment.ofArray(new long[] {size, dispUnit});
        long[] all = new long[2 * comm.size()];
        comm.allgather(mine, 2, Datatype.LONG, MemorySegment.ofArray(all));
        long[] sizes = new long[comm.size()];
        int[] units = new int[comm.size()];
        for (int r = 0; r < sizes.length; r++) {
            sizes[r] = all[2 * r];
            units[r] = (int) all[2 * r + 1];
        }
        return new WindowExtents(sizes, units);
    }

    /** Rank {@code rank}'s part in bytes. */
    public long size(int rank) {
        return sizes[rank];
    }

    /** Rank {@code rank}'s displacement unit. */
    public int dispUnit(int rank) {
        return dispUnits[rank];
    }

    /** The byte offset of {@code bytes} at displacement {@code disp} of {@code target}'s part; RMA_RANGE unless inside it. */
    long byteOffset(int target, long disp, long bytes) {
        long offset;
        try {
            offset = Math.multiplyExact(disp, (long) dispUnits[target]);
        } catch (ArithmeticException overflow) {
            offset = -1;
        }
        if (disp < 0 || offset < 0 || bytes > sizes[target] - offset) {
            throw new LockstepException(ErrorClass.RMA_RANGE, "an access of " + bytes + " bytes at displacement " + disp + " (unit "
                    + dispUnits[target] + " bytes) reaches outside rank " + target + "'s window of " + sizes[target] + " bytes");
        }
        return offset;
    }

}
