package org.lockstep.conformance.run;

import java.util.Optional;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;

/**
 * A provider's request as ranks see it in a run: completion is recorded the first time it is
 * observed, and {@link #await()} polls {@link Request#test()} so that the runner can stop a rank
 * that waits forever.
 */
final class RecordingRequest implements Request {
    private final Request raw;
    private final RankState rank;
    private final RankState.Activity started;
    private boolean recorded;

    RecordingRequest(Request raw, RankState rank, RankState.Activity started) {
        this.raw = raw;
        this.rank = rank;
        this.started = started;
    }

    /** The provider's request behind this one. */
    Request unwrap() {
        return raw;
    }

    @Override
    public Status await() {
        Optional<Status> done = poll();
        if (done.isPresent()) {
            return done.get();
        }
        RankState.Activity waiting = rank.begin("wait", started.operation() + "(" + started.detail() + ")", true);
        Waiting idle = new Waiting(rank);
        try {
            while (true) {
                done = poll();
                if (done.isPresent()) {
                    rank.end(waiting, "done");
                    return done.get();
                }
                idle.idle();
            }
        } catch (RuntimeException | Error e) {
            if (!(e instanceof RunAborted)) {
                rank.end(waiting, "threw " + e);
            }
            throw e;
        }
    }

    /** One test of the provider's request, recording its completion. */
    private Optional<Status> poll() {
        Optional<Status> result;
        try {
            result = raw.test();
        } catch (LockstepException e) {
            record("threw " + e.getMessage());
            throw e;
        }
        result.ifPresent(s -> record(String.valueOf(s)));
        return result;
    }

    @Override
    public Optional<Status> test() {
        Optional<Status> result = poll();
        if (result.isEmpty()) {
            rank.polling("test (polling)", started.operation() + "(" + started.detail() + ")");
        }
        return result;
    }

    @Override
    public boolean isComplete() {
        return raw.isComplete();
    }

    @Override
    public void cancel() {
        RankState.Activity a = rank.begin("cancel", started.operation() + "(" + started.detail() + ")", false);
        raw.cancel();
        rank.end(a, "requested");
    }

    private void record(String outcome) {
        if (!recorded) {
            recorded = true;
            rank.end(started, outcome);
        }
        RankState.Activity now = rank.current;
        if (now != null && now.operation().equals("test (polling)")) {
            rank.current = null;
        }
    }

    /** The provider's own request. */
    Request raw() {
        return raw;
    }
}
