package org.lockstep.embsp.comm;

import org.lockstep.api.Request;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;

/**
 * Barrier across real processors: each processor counts its own members' arrivals; when they are
 * all in, it tells the others (one COUNT frame each); a processor's members leave once its own
 * count is complete and every other processor has reported — P(P−1) frames, no data.
 */
final class SpanningBarrier {
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningBarrier(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
    }

    void barrier(EmCommunicator c) {
        CallState call = calls.enter(c, "barrier");
        arrive(c.vpGroup(), call);
        calls.await(c, call, () -> done(c.vpGroup(), call), call.arrivals, "barrier across real processors");
        calls.leave(c, call);
    }

    Request ibarrier(EmCommunicator c) {
        CallState call = calls.enter(c, "barrier");
        arrive(c.vpGroup(), call);
        c.vp().endCall();
        return new CollectiveRequest(c, call, () -> done(c.vpGroup(), call), call.arrivals, "ibarrier", () -> {
            calls.await(c, call, () -> done(c.vpGroup(), call), call.arrivals, "ibarrier across real processors");
            calls.leave(c, call);
        });
    }

    private void arrive(Group group, CallState call) {
        calls.locked(() -> {
            if (call.arrivals.increment() == group.localMembers()) {
                call.io.control(group.otherProcessors(), 0);
                remote.toOthers(group, Frame.of(FrameKind.COUNT, group.key(), call.sequence, SpanningState.ARRIVALS,
                        group.localMembers(), 0), call);
            }
            call.arrivals.wakeAll(calls.scheduler());
        });
    }

    private static boolean done(Group group, CallState call) {
        return call.arrivals.count() == group.localMembers() && call.span.allReported(SpanningState.ARRIVALS);
    }
}
