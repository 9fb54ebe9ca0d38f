package org.lockstep.embsp.comm;

import org.lockstep.api.Request;

/** Barrier: a final synchronisation; every VP counts its arrival and the last one releases the others. */
final class Barrier {
    private final CallSynchronisation calls;

    Barrier(CallSynchronisation calls) {
        this.calls = calls;
    }

    void barrier(EmCommunicator c) {
        CallState call = calls.enter(c, "barrier");
        arrive(call);
        calls.await(c, call, call.arrivals::isSet, call.arrivals, "barrier");
        calls.leave(c, call);
    }

    Request ibarrier(EmCommunicator c) {
        CallState call = calls.enter(c, "barrier");
        arrive(call);
        c.vp().endCall();
        return new CollectiveRequest(c, call, call.arrivals::isSet, call.arrivals, "ibarrier", () -> {
            calls.await(c, call, call.arrivals::isSet, call.arrivals, "ibarrier");
            calls.leave(c, call);
        });
    }

    private void arrive(CallState call) {
        calls.locked(() -> {
            if (call.arrivals.increment() == call.n) {
                call.arrivals.set(calls.scheduler());
            }
        });
    }
}
