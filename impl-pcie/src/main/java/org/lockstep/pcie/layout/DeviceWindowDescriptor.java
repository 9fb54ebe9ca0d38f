package org.lockstep.pcie.layout;

/**
 * One rank's part of a one-sided window on the mailbox transport: a device buffer of that rank
 * (taken from its heap partition like every buffer of {@code Communicator.allocate}), whose first
 * line holds the part's two lock words; every rank reads and writes the rest directly.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +===============================================================+
 *  |   passive-target lock (8): EXCLUSIVE bit | shared holders     |  0
 *  +---------------------------------------------------------------+
 *  |   accumulate lock (8): 0 free, else holder's rank + 1         |  8
 *  +---------------------------------------------------------------+
 *  |   fences (8): how many fences this rank has entered           | 16
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 ...                     |
 *  +===============================================================+
 *  |                     window bytes (size)                       | 64
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>The passive-target lock: exclusive by compare-and-set from 0 to {@link #EXCLUSIVE}; shared
 * by adding one, taken back (subtracting one) if the exclusive bit was set; released by a release
 * store of 0 or by subtracting one. The accumulate lock makes each accumulate, get-accumulate and compare-and-swap
 * on the part atomic against the others (MPI's accumulate atomicity), for any element type.
 * A fence stores its number in the fences word with release and waits until every rank's word
 * has reached it (a barrier of the window's ranks on the device, no message).
 * Every word starts at 0: the buffer is zeroed before the window's creation ends.
 */
public final class DeviceWindowDescriptor {
    public static final int PASSIVE_LOCK_OFFSET = 0;
    public static final int ACCUMULATE_LOCK_OFFSET = 8;
    public static final int FENCES_OFFSET = 16;
    public static final int DATA_OFFSET = LayoutConstants.CACHE_LINE;

    /** The passive-target lock word's bit for an exclusive holder. */
    public static final long EXCLUSIVE = Long.MIN_VALUE;

    private DeviceWindowDescriptor() {
    }
}
