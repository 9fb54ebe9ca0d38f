package org.lockstep.spi.window;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window.LockType;

/**
 * The passive-target lock of one rank's part of a point-to-point window, as its agent keeps it:
 * one exclusive holder or any number of shared ones; requests that conflict wait in arrival order
 * (a shared request behind a waiting exclusive one waits too, so that writers are not starved).
 * It knows its holders by rank, so that requests queued behind a holder that has gone can be denied.
 */
final class TargetLocks {
    /** A lock request: who asked, how, and the ticket its grant answers. */
    record Request(int origin, LockType type, int ticket) {
    }

    private int exclusiveHolder = -1;
    private int sharedHolders;
    /** Shared holds by origin. */
    private final int[] sharedBy;
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();

    TargetLocks(int ranks) {
        this.sharedBy = new int[ranks];
    }

    /** Takes the lock for {@code request} now, or queues it; returns whether it was granted. */
    boolean acquire(Request request) {
        if (waiting.isEmpty() && fits(request.type())) {
            hold(request);
            return true;
        }
        waiting.add(request);
        return false;
    }

    /** Releases {@code origin}'s lock; returns the waiting requests that now hold it. */
    List<Request> release(int origin) {
        if (exclusiveHolder == origin) {
            exclusiveHolder = -1;
        } else if (sharedBy[origin] > 0) {
            sharedBy[origin]--;
            sharedHolders--;
        } else {
            throw new LockstepException(ErrorClass.RMA_SYNC, "rank " + origin + " released a lock it does not hold");
        }
        List<Request> granted = new ArrayList<>();
        while (!waiting.isEmpty() && fits(waiting.peek().type())) {
            Request next = waiting.poll();
            hold(next);
            granted.add(next);
        }
        return granted;
    }

    /** Whether requests wait for the lock. */
    boolean hasWaiting() {
        return !waiting.isEmpty();
    }

    /** A holder for which {@code gone} holds, or -1. */
    int holderAmong(IntPredicate gone) {
        if (exclusiveHolder >= 0) {
            return gone.test(exclusiveHolder) ? exclusiveHolder : -1;
        }
        for (int r = 0; r < sharedBy.length && sharedHolders > 0; r++) {
            if (sharedBy[r] > 0 && gone.test(r)) {
                return r;
            }
        }
        return -1;
    }

    /** Takes every waiting request off the queue: a holder before them will never let go. */
    List<Request> denyWaiting() {
        List<Request> denied = new ArrayList<>(waiting);
        waiting.clear();
        return denied;
    }

    private boolean fits(LockType type) {
        return exclusiveHolder < 0 && (type == LockType.SHARED || sharedHolders == 0);
    }

    private void hold(Request request) {
        if (request.type() == LockType.EXCLUSIVE) {
            exclusiveHolder = request.origin();
        } else {
            sharedBy[request.origin()]++;
            sharedHolders++;
        }
    }
}
