package org.lockstep.pcie.layout;

/**
 * One rank's part of a one-sided window on the mailbox transport: a device buffer of that rank
 * (taken from its heap partition like every buffer of {@code Communicator.allocate}), whose header
 * holds the part's lock words; every rank reads and writes the rest directly.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +===============================================================+
 *  |   exclusive lock (8): 0 free, else the holder's rank + 1      |  0
 *  +---------------------------------------------------------------+
 *  |   accumulate lock (8): 0 free, else the holder's rank + 1     |  8
 *  +---------------------------------------------------------------+
 *  |   fences (8): how many fences this rank has entered           | 16
 *  +---------------------------------------------------------------+
 *  |   shared holders (8 per 64 ranks): bit r of word r / 64 is    | 24
 *  |   set while rank r holds, or tries to take, a shared lock     |
 *  +---------------------------------------------------------------+
 *  |                     ... padding to a line ...                 |
 *  +===============================================================+
 *  |                     window bytes (size)                       | dataOffset(n):
 *  +---------------------------------------------------------------+   64 up to 320 ranks
 * </pre>
 *
 * <p>The passive-target lock names its holders so that a waiter can tell a holder that has died
 * (and would never release it) from one that is slow; its protocol is {@code PassiveTargetLock}.
 * The accumulate lock makes each accumulate, get-accumulate and compare-and-swap on the part
 * atomic against the others (MPI's accumulate atomicity), for any element type. A fence stores
 * its number in the fences word with release and waits until every rank's word has reached it (a
 * barrier of the window's ranks on the device, no message). Every word starts at 0: the buffer is
 * zeroed before the window's creation ends.
 */
public final class DeviceWindowDescriptor {
    public static final int EXCLUSIVE_LOCK_OFFSET = 0;
    public static final int ACCUMULATE_LOCK_OFFSET = 8;
    public static final int FENCES_OFFSET = 16;
    public static final int SHARED_HOLDERS_OFFSET = 24;

    private DeviceWindowDescriptor() {
    }

    /** Words of the shared-holder bit set for a window of {@code ranks} ranks. */
    public static int sharedHolderWords(int ranks) {
        return (ranks + Long.SIZE - 1) / Long.SIZE;
    }

    /** Where a part's window bytes start, for a window of {@code ranks} ranks: the header rounded up to a line. */
    public static long dataOffset(int ranks) {
        return LayoutConstants.align(SHARED_HOLDERS_OFFSET + (long) Long.BYTES * sharedHolderWords(ranks), LayoutConstants.CACHE_LINE);
    }
}
