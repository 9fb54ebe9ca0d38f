package org.lockstep.embsp.comm;

import java.util.function.BooleanSupplier;

import org.lockstep.api.Communicator;
import org.lockstep.api.Status;
import org.lockstep.embsp.sim.CompositeSignal;

/** A non-blocking collective: started at the call, finished (its waiting part) when completed. */
final class CollectiveRequest extends EmRequest {
    private static final Status COLLECTIVE_STATUS = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    private final EmCommunicator comm;
    private final CallState call;
    private final BooleanSupplier ready;
    private final CompositeSignal waitOn;
    private final Runnable completion;
    private boolean finished;

    CollectiveRequest(EmCommunicator comm, CallState call, BooleanSupplier ready, CompositeSignal waitOn, String what,
                      Runnable completion) {
        super(comm.world(), comm.vp(), what);
        this.comm = comm;
        this.call = call;
        this.ready = ready;
        this.waitOn = waitOn;
        this.completion = completion;
    }

    @Override
    BooleanSupplier readiness() {
        return () -> finished || ready.getAsBoolean();
    }

    @Override
    CompositeSignal signal() {
        return waitOn;
    }

    @Override
    void finish() {
        if (finished) {
            return;
        }
        finished = true;
        comm.vp().beginCall(call.io.counted());
        completion.run();
        world.scheduler().lock().lock();
        try {
            complete(COLLECTIVE_STATUS);
        } finally {
            world.scheduler().lock().unlock();
        }
    }
}
