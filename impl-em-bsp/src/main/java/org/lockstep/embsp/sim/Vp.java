package org.lockstep.embsp.sim;

import java.util.concurrent.locks.Condition;

import org.lockstep.api.LockstepException;
import org.lockstep.embsp.io.IoMeter;

/**
 * A virtual processor: its id, its partition (id mod k), its context, and the bookkeeping the
 * {@link Scheduler} keeps for its thread. Fields marked "scheduler" are guarded by the
 * scheduler's lock; the accounting fields are written by the VP's own thread only.
 */
public final class Vp implements IoActor {
    private final int id;
    private final Partition partition;
    private final Context context;
    final Condition wake;

    // scheduler
    RunState state = RunState.STARTING;
    boolean holdsPartition;
    LockstepException failure;
    String waitingFor = "";
    java.util.function.BooleanSupplier waitCondition = () -> true;

    // accounting (own thread)
    private int superstep;
    private IoMeter superstepMeter;
    private IoMeter callMeter;
    private final Accounting accounting;

    Vp(int id, Partition partition, Context context, Condition wake, Accounting accounting) {
        this.id = id;
        this.partition = partition;
        this.context = context;
        this.wake = wake;
        this.accounting = accounting;
        this.superstepMeter = accounting.superstepMeter(0);
    }

    public int id() {
        return id;
    }

    @Override
    public Partition partition() {
        return partition;
    }

    public Context context() {
        return context;
    }

    /** The virtual superstep this VP is in: the number of collective calls it has entered. */
    public int superstep() {
        return superstep;
    }

    /** Enters the next virtual superstep (a collective call begins). */
    public void nextSuperstep() {
        accounting.superstepBoundary(superstep, ++superstep);
        superstepMeter = accounting.superstepMeter(superstep);
    }

    /** Attributes this VP's I/O to a collective call until {@link #endCall()}. */
    public void beginCall(IoMeter meter) {
        callMeter = meter;
    }

    public void endCall() {
        callMeter = null;
    }

    /** The meters this VP's I/O counts on now: the run's, the superstep's, the call's (or point-to-point's). */
    @Override
    public IoMeter[] meters() {
        return new IoMeter[] {accounting.world(), superstepMeter, callMeter == null ? accounting.pointToPoint() : callMeter};
    }

    public Accounting accounting() {
        return accounting;
    }

    @Override
    public String toString() {
        return "VP " + id;
    }
}
