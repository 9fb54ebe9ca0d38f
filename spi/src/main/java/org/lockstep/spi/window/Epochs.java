package org.lockstep.spi.window;

import java.util.Arrays;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window.LockType;

/**
 * The epochs one rank of a window is in (MPI 4.1 §12.5), so that every provider rejects an access
 * outside an epoch and an unmatched synchronisation call the same way, before anything moves:
 * a fence epoch (from a fence until the next), a post-start access epoch (start to complete), an
 * exposure epoch (post to wait), and passive-target locks per target or on all.
 */
final class Epochs {
    private final int size;
    /** Whether a fence has opened an epoch that no other synchronisation has closed. */
    private boolean fenceOpen;
    /** Whether this rank accessed a target in the open fence epoch (a NOPRECEDE fence cannot close it). */
    private boolean accessedSinceFence;
    /** Whether the last fence had NOSUCCEED and no other epoch has opened since. */
    private boolean fenceClosedAll;
    /** Targets of the open start epoch, or null. */
    private boolean[] started;
    /** Origins of the open post epoch, or null. */
    private boolean[] posted;
    /** The lock held on each target, or null. */
    private final LockType[] locks;
    private int locksHeld;
    private boolean lockedAll;

    Epochs(int size) {
        this.size = size;
        this.locks = new LockType[size];
    }

    /** Checks that an access to {@code target} lies in an access epoch. */
    void checkAccess(int target) {
        if (lockedAll || locks[target] != null || (started != null && started[target])) {
            return;
        }
        if (fenceOpen && started == null && locksHeld == 0) {
            accessedSinceFence = true;
            return;
        }
        if (started != null) {
            throw sync("rank " + target + " is not in the group of this rank's start epoch");
        }
        if (fenceClosedAll) {
            throw sync("an access to rank " + target + " after a fence with NOSUCCEED, which opens no epoch");
        }
        throw sync("an access to rank " + target + " outside an access epoch (no fence, start or lock opened one)");
    }

    /** A fence; {@code noPrecede}: it closes no accesses of this rank, {@code noSucceed}: it opens no epoch. */
    void fence(boolean noPrecede, boolean noSucceed) {
        if (started != null || posted != null || locksHeld > 0 || lockedAll) {
            throw sync("fence inside a " + openEpoch() + " epoch");
        }
        if (noPrecede && accessedSinceFence) {
            throw sync("fence with NOPRECEDE after this rank's accesses of the epoch it closes");
        }
        fenceOpen = !noSucceed;
        fenceClosedAll = noSucceed;
        accessedSinceFence = false;
    }

    void start(int[] targets) {
        if (started != null || locksHeld > 0 || lockedAll) {
            throw sync("start inside a " + openEpoch() + " epoch");
        }
        started = membership(targets);
        fenceOpen = false;
        fenceClosedAll = false;
    }

    /** Ends the start epoch; the caller completes it. */
    void complete() {
        if (started == null) {
            throw sync("complete without a matching start");
        }
        started = null;
    }

    void post(int[] origins) {
        if (posted != null) {
            throw sync("post inside an exposure epoch opened by an earlier post");
        }
        if (locksHeld > 0 || lockedAll) {
            throw sync("post inside a " + openEpoch() + " epoch");
        }
        posted = membership(origins);
        fenceOpen = false;
        fenceClosedAll = false;
    }

    /** Ends the exposure epoch; the caller waits for its origins. */
    void waitExposure() {
        if (posted == null) {
            throw sync("wait without a matching post");
        }
        posted = null;
    }

    boolean isPosted() {
        return posted != null;
    }

    void lock(LockType type, int target) {
        if (started != null) {
            throw sync("lock inside a start epoch");
        }
        if (lockedAll || locks[target] != null) {
            throw sync("rank " + target + " is locked by this rank already");
        }
        locks[target] = type;
        locksHeld++;
        fenceOpen = false;
        fenceClosedAll = false;
    }

    void unlock(int target) {
        if (locks[target] == null) {
            throw sync("unlock of rank " + target + ", which this rank has not locked" + (lockedAll ? " (it holds lockAll: unlockAll)" : ""));
        }
        locks[target] = null;
        locksHeld--;
    }

    void lockAll() {
        if (started != null || lockedAll || locksHeld > 0) {
            throw sync("lockAll inside a " + openEpoch() + " epoch");
        }
        lockedAll = true;
        fenceOpen = false;
        fenceClosedAll = false;
    }

    void unlockAll() {
        if (!lockedAll) {
            throw sync("unlockAll without lockAll");
        }
        lockedAll = false;
    }

    /** Checks that {@code target} is locked by this rank (flush). */
    void checkLocked(int target) {
        if (!lockedAll && locks[target] == null) {
            throw sync("flush of rank " + target + " outside a lock epoch on it");
        }
    }

    /** Whether this rank holds a lock on {@code target} (its own or lockAll's). */
    boolean isLocked(int target) {
        return lockedAll || locks[target] != null;
    }

    /** Checks that this rank is in a passive-target epoch: holds lockAll or a lock on some rank ({@code call}: flushAll, ...). */
    void checkPassive(String call) {
        if (!lockedAll && locksHeld == 0) {
            throw sync(call + " outside a passive-target epoch (this rank holds no lock on the window)");
        }
    }

    /** Checks that no epoch but a fence's is open (free). */
    void checkClosed() {
        if (started != null || posted != null || locksHeld > 0 || lockedAll) {
            throw sync("free inside a " + openEpoch() + " epoch");
        }
    }

    private String openEpoch() {
        if (started != null) {
            return "start";
        }
        if (posted != null) {
            return "post";
        }
        return lockedAll ? "lockAll" : "lock";
    }

    private boolean[] membership(int[] ranks) {
        boolean[] in = new boolean[size];
        Arrays.stream(ranks).forEach(r -> in[r] = true);
        return in;
    }

    static LockstepException sync(String message) {
        return new LockstepException(ErrorClass.RMA_SYNC, message);
    }
}
