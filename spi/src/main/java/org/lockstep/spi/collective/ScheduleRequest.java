package org.lockstep.spi.collective;

import java.util.List;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * The request of a started {@link Schedule}: a state machine over its rounds, advanced by
 * {@link #test()} and {@link #await()} (and by waits on the other schedules of its
 * {@link ProgressGroup}) on the calling thread. The first error of a message or of local work
 * fails the whole collective; both methods then throw it.
 */
final class ScheduleRequest implements Request {
    /** What a completed collective reports: MPI leaves source, tag and count of a collective's status undefined. */
    static final Status COMPLETED = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    private final Communicator channel;
    private final List<List<Schedule.Step>> rounds;
    private final ProgressGroup group;
    private int nextRound;
    private Request[] pending = new Request[0];
    private int pendingCount;
    /** Set while a call is advancing this request, so that a nested call leaves it alone. */
    private boolean busy;
    private volatile LockstepException failure;
    private volatile boolean complete;

    /** Scratch of the schedule: returned to the pool on completion (not on failure: a message may still land in it). */
    private final List<long[]> scratch;

    ScheduleRequest(Communicator channel, List<List<Schedule.Step>> rounds, ProgressGroup group, List<long[]> scratch) {
        this.channel = channel;
        this.scratch = scratch;
        this.rounds = rounds;
        this.group = group;
    }

    /** Starts rounds until one has messages in flight, or the schedule is done. */
    void begin() {
        busy = true;
        try {
            startRounds();
        } catch (LockstepException e) {
            failure = e;
            throw e;
        } finally {
            busy = false;
        }
        if (!complete) {
            group.add(this);
        }
    }

    private void startRounds() {
        while (pendingCount == 0 && nextRound < rounds.size()) {
            List<Schedule.Step> round = rounds.get(nextRound++);
            if (pending.length < round.size()) {
                pending = new Request[round.size()];
            }
            for (Schedule.Step step : round) {
                switch (step) {
                    case Schedule.Local local -> local.work().run();
                    case Schedule.Transfer t -> {
                        long bytes = t.data().byteSize();
                        Request r = t.send()
                                ? channel.isend(t.data(), bytes, Datatype.BYTE, t.peer(), t.tag())
                                : channel.irecv(t.data(), bytes, Datatype.BYTE, t.peer(), t.tag());
                        pending[pendingCount++] = r;
                    }
                }
            }
        }
        if (pendingCount == 0 && nextRound == rounds.size() && !complete) {
            complete = true;
            scratch.forEach(ScratchPool::give);
        }
    }

    /** One pass: tests the messages in flight and starts the rounds that can start. Returns whether anything moved. */
    private boolean advance() {
        boolean moved = false;
        boolean roundEnded;
        do {
            roundEnded = false;
            int stillPending = 0;
            for (int i = 0; i < pendingCount; i++) {
                Request r = pending[i];
                if (r.test().isEmpty()) {
                    pending[stillPending++] = r;
                }
            }
            for (int i = stillPending; i < pendingCount; i++) {
                pending[i] = null;
            }
            if (stillPending < pendingCount) {
                moved = true;
                roundEnded = stillPending == 0;
            }
            pendingCount = stillPending;
            if (pendingCount == 0) {
                startRounds();
            }
        } while (roundEnded && !complete);
        return moved;
    }

    /** Advances this request for another one's wait; a failure is kept for this request's own caller. */
    boolean advanceQuietly() {
        if (busy || isComplete()) {
            return false;
        }
        busy = true;
        try {
            boolean moved = advance();
            if (complete) {
                group.remove(this);
            }
            return moved;
        } catch (LockstepException e) {
            failure = e;
            group.remove(this);
            return true;
        } finally {
            busy = false;
        }
    }

    @Override
    public Status await() {
        rethrowFailure();
        IdleStrategy idle = new IdleStrategy();
        busy = true;
        try {
            while (!complete) {
                if (pendingCount > 0 && group.isOnly(this)) {
                    // nothing else to advance: wait on the messages with the transport's own back-off
                    for (int i = 0; i < pendingCount; i++) {
                        pending[i].await();
                        pending[i] = null;
                    }
                    pendingCount = 0;
                    startRounds();
                } else {
                    boolean moved = advance();
                    moved |= group.advanceOthers(this);
                    idle.idle(moved);
                }
            }
        } catch (LockstepException e) {
            failure = e;
            throw e;
        } finally {
            busy = false;
            group.remove(this);
        }
        return COMPLETED;
    }

    @Override
    public Optional<Status> test() {
        rethrowFailure();
        if (!complete) {
            busy = true;
            try {
                advance();
            } catch (LockstepException e) {
                failure = e;
                group.remove(this);
                throw e;
            } finally {
                busy = false;
            }
            if (complete) {
                group.remove(this);
            } else {
                group.advanceOthers(this);
            }
        }
        return complete ? Optional.of(COMPLETED) : Optional.empty();
    }

    @Override
    public boolean isComplete() {
        return complete || failure != null;
    }

    /** A collective cannot be withdrawn once started (MPI); it completes as usual. */
    @Override
    public void cancel() {
    }

    private void rethrowFailure() {
        LockstepException e = failure;
        if (e != null) {
            throw e;
        }
    }
}
