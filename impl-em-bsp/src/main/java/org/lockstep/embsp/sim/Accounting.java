package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoMeter;
import org.lockstep.spi.events.Events;

/**
 * The simulator's own I/O accounting (seed 003: it counts, so the thesis bounds are checked, not
 * assumed): the whole run, point-to-point traffic, each virtual superstep (with its wall-clock
 * span: from the first VP entering it to the last one leaving it), and each collective call.
 * When the last of this real processor's VPs leaves a superstep, it is recorded as a
 * {@link SuperstepEvent} (if a Flight Recorder recording wants it).
 */
public final class Accounting {
    private final IoMeter world = new IoMeter();
    private final IoMeter pointToPoint = new IoMeter();
    private final List<Superstep> supersteps = new ArrayList<>();
    private final List<OpenRecord> calls = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final int realProcessor;
    private final int localVps;

    /** The accounting of real processor {@code realProcessor}, which runs {@code localVps} VPs. */
    public Accounting(int realProcessor, int localVps) {
        this.realProcessor = realProcessor;
        this.localVps = localVps;
    }

    /** One superstep: its I/O, its span in nanoseconds since the run started, the VPs that have left it. */
    private static final class Superstep {
        final IoMeter meter = new IoMeter();
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        int left;
        /** Begun when the superstep was first entered; null when no recording wanted it then. */
        SuperstepEvent event;
    }

    public IoMeter world() {
        return world;
    }

    public IoMeter pointToPoint() {
        return pointToPoint;
    }

    /** The meter of superstep {@code s}, created on first use. */
    public synchronized IoMeter superstepMeter(int s) {
        return superstep(s).meter;
    }

    private Superstep superstep(int s) {
        while (supersteps.size() <= s) {
            Superstep created = new Superstep();
            created.event = Events.begun(SuperstepEvent::new);
            supersteps.add(created);
        }
        return supersteps.get(s);
    }

    /** A VP leaves superstep {@code from} and enters {@code to} now. */
    public synchronized void superstepBoundary(int from, int to) {
        long now = System.nanoTime() - startNanos;
        Superstep entered = superstep(to);
        entered.start = Math.min(entered.start, now);
        leave(from, now);
    }

    /** A VP has finished its program while in superstep {@code s}. */
    public synchronized void finished(int s) {
        leave(s, System.nanoTime() - startNanos);
    }

    private void leave(int s, long now) {
        Superstep left = superstep(s);
        left.end = Math.max(left.end, now);
        if (++left.left == localVps && left.event != null) {
            SuperstepEvent event = left.event;
            left.event = null;
            event.end();
            if (event.shouldCommit()) {
                event.realProcessor = realProcessor;
                event.superstep = s;
                event.swapInBytes = left.meter.bytes(IoCategory.SWAP_IN);
                event.swapOutBytes = left.meter.bytes(IoCategory.SWAP_OUT);
                event.commit();
            }
        }
    }

    public synchronized int superstepCount() {
        return supersteps.size();
    }

    public synchronized List<IoMeter> superstepMeters() {
        List<IoMeter> meters = new ArrayList<>(supersteps.size());
        for (Superstep s : supersteps) {
            meters.add(s.meter);
        }
        return List.copyOf(meters);
    }

    /** Seconds since the run started. */
    public double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Seconds of each superstep's span (superstep 0 starts with the run). */
    public synchronized double[] superstepSeconds() {
        double[] seconds = new double[supersteps.size()];
        for (int i = 0; i < supersteps.size(); i++) {
            Superstep span = supersteps.get(i);
            long start = i == 0 ? 0 : span.start;
            seconds[i] = span.end == Long.MIN_VALUE || start == Long.MAX_VALUE ? 0 : Math.max(0, span.end - start) / 1e9;
        }
        return seconds;
    }

    /**
     * Records a finished call. Its counts are read from {@code counted}, the call's meter, when the
     * records are asked for: a lazy swap-in made in the call counts what its faults read when the
     * context leaves its partition, which may be after the call (eager, the same bytes would have
     * been read in the call).
     */
    public synchronized void record(CallRecord call, IoMeter counted) {
        calls.add(new OpenRecord(call, counted));
    }

    /** The calls recorded, with what their meters count now (all of it once every VP has finished). */
    public synchronized List<CallRecord> calls() {
        List<CallRecord> records = new ArrayList<>(calls.size());
        for (OpenRecord c : calls) {
            records.add(c.record.withCounted(c.counted.snapshot()));
        }
        return List.copyOf(records);
    }

    private record OpenRecord(CallRecord record, IoMeter counted) {
    }
}
