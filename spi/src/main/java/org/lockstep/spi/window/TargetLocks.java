package org.lockstep.spi.window;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window.LockType;

/**
 * The passive-target lock of one rank's part of a point-to-point window, as its agent keeps it:
 * one exclusive holder or any number of shared ones; requests that conflict wait in arrival order
 * (a shared request behind a waiting exclusive one waits too, so that writers are not starved).
 */
final class TargetLocks {
    /** A lock request: who asked, how, and the ticket its grant answers. */
    record Request(int origin, LockType type, int ticket) {
    }

    private int exclusiveHolder = -1;
    private int sharedHolders;
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();

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
        } else if (sharedHolders > 0) {
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

    private boolean fits(LockType type) {
        return exclusiveHolder < 0 && (type == LockType.SHARED || sharedHolders == 0);
    }

    private void hold(Request request) {
        if (request.type() == LockType.EXCLUSIVE) {
            exclusiveHolder = request.origin();
        } else {
            sharedHolders++;
        }
    }
}
