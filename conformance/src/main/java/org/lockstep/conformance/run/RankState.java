package org.lockstep.conformance.run;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** What the runner knows of one rank: its thread, what it is doing, what it did last. */
final class RankState {
    /** Events kept per rank for reports: the most recent ones. */
    private static final int RECENT_EVENTS = 24;

    /** An operation in progress. */
    record Activity(String operation, String detail, long sinceNanos, boolean blocking) {
    }

    /**
     * The rank polls (an iprobe or a test that found nothing): it waits as surely as in a blocking
     * call, so it counts as blocked, and polling is not progress. Repeated polls of the same kind
     * keep the time of the first.
     */
    void polling(String operation, String detail) {
        Activity a = current;
        if (a == null || !a.blocking() || !a.operation().equals(operation) || !a.detail().equals(detail)) {
            current = new Activity(operation, detail, System.nanoTime(), true);
        }
    }

    final int rank;
    private final RunState run;
    volatile Thread thread;
    volatile Activity current;
    volatile boolean finished;
    volatile Throwable failure;
    private long nextSequence;
    private final ArrayDeque<Event> recent = new ArrayDeque<>();
    private final List<Leftover> leftovers = new ArrayList<>();

    RankState(int rank, RunState run) {
        this.rank = rank;
        this.run = run;
    }

    /** Starts recording an operation; {@code blocking} if the rank now waits for others. */
    Activity begin(String operation, String detail, boolean blocking) {
        Activity a = new Activity(operation, detail, System.nanoTime(), blocking);
        current = a;
        return a;
    }

    /** The operation ended with {@code outcome}. */
    void end(Activity activity, String outcome) {
        long now = System.nanoTime();
        Event e = new Event(rank, nextSequence++, activity.operation(), activity.detail(), activity.sinceNanos(), now, outcome);
        synchronized (recent) {
            if (recent.size() == RECENT_EVENTS) {
                recent.removeFirst();
            }
            recent.addLast(e);
        }
        if (current == activity) {
            current = null;
        }
        run.progressed();
    }

    List<Event> recentEvents() {
        synchronized (recent) {
            return List.copyOf(recent);
        }
    }

    long operations() {
        return nextSequence;
    }

    void leftover(Leftover l) {
        synchronized (leftovers) {
            leftovers.add(l);
        }
    }

    List<Leftover> leftovers() {
        synchronized (leftovers) {
            return List.copyOf(leftovers);
        }
    }

    void checkAborted() {
        String reason = run.abortReason();
        if (reason != null) {
            throw new RunAborted(reason);
        }
    }

    RunState run() {
        return run;
    }
}
