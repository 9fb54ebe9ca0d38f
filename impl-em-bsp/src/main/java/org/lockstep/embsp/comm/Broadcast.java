package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

import org.lockstep.api.Request;
import org.lockstep.embsp.sim.Location;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;

/** Bcast, rooted: the root publishes where its buffer is; every other VP pulls it (memory or disk); the root waits until all have. */
final class Broadcast {
    private final CallSynchronisation calls;

    Broadcast(CallSynchronisation calls) {
        this.calls = calls;
    }

    void bcast(EmCommunicator c, MemorySegment data, int root) {
        CallState call = calls.enter(c, "bcast");
        start(c, call, data, root).run();
    }

    Request ibcast(EmCommunicator c, MemorySegment data, int root) {
        CallState call = calls.enter(c, "bcast");
        Runnable completion = start(c, call, data, root);
        c.vp().endCall();
        BooleanSupplier ready = c.rank() == root ? call.finished::isSet : call.rootReady::isSet;
        return new CollectiveRequest(c, call, ready, c.rank() == root ? call.finished : call.rootReady, "ibcast", completion);
    }

    /** The root publishes its buffer; returns what remains: the root waits for all, the others pull. */
    private Runnable start(EmCommunicator c, CallState call, MemorySegment data, int root) {
        long length = data.byteSize();
        if (c.rank() == root) {
            calls.locked(() -> {
                call.root = root;
                call.io.messageOf(length);
                call.io.eachOtherPulls(call.n, length);
                call.rootBuffer = Location.of(c.vp(), data);
                call.rootReady.set(calls.scheduler());
                if (call.n == 1) {
                    call.finished.set(calls.scheduler());
                }
            });
            return () -> {
                calls.finalSynchronisation(c, call, "bcast root waiting for every rank to read");
                calls.leave(c, call);
            };
        }
        return () -> {
            calls.rootedSynchronisation(c, call, "bcast waiting for root " + root);
            checkLength("bcast", call.rootBuffer.length(), length);
            calls.mover().read(c.vp(), call.rootBuffer, data, calls.deliveries(c));
            calls.countFinished(call, call.n - 1);
            calls.leave(c, call);
        };
    }
}
