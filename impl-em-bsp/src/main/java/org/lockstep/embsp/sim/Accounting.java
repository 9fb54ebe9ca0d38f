package org.lockstep.embsp.sim;

import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.io.IoMeter;

/**
 * The simulator's own I/O accounting (seed 003: it counts, so the thesis bounds are checked, not
 * assumed): the whole run, point-to-point traffic, each virtual superstep (with its wall-clock
 * span: from the first VP entering it to the last one leaving it), and each collective call.
 */
public final class Accounting {
    private final IoMeter world = new IoMeter();
    private final IoMeter pointToPoint = new IoMeter();
    private final List<IoMeter> supersteps = new ArrayList<>();
    private final List<long[]> spans = new ArrayList<>();
    private final List<CallRecord> calls = new ArrayList<>();
    private final long startNanos = System.nanoTime();

    public IoMeter world() {
        return world;
    }

    public IoMeter pointToPoint() {
        return pointToPoint;
    }

    /** The meter of superstep {@code s}, created on first use. */
    public synchronized IoMeter superstepMeter(int s) {
        while (supersteps.size() <= s) {
            supersteps.add(new IoMeter());
            spans.add(new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        }
        return supersteps.get(s);
    }

    /** A VP leaves superstep {@code from} and enters {@code to} now. */
    public synchronized void superstepBoundary(int from, int to) {
        long now = System.nanoTime() - startNanos;
        superstepMeter(to);
        spans.get(from)[1] = Math.max(spans.get(from)[1], now);
        spans.get(to)[0] = Math.min(spans.get(to)[0], now);
    }

    /** A VP has finished its program while in superstep {@code s}. */
    public synchronized void finished(int s) {
        superstepMeter(s);
        spans.get(s)[1] = Math.max(spans.get(s)[1], System.nanoTime() - startNanos);
    }

    public synchronized int superstepCount() {
        return supersteps.size();
    }

    public synchronized List<IoMeter> superstepMeters() {
        return List.copyOf(supersteps);
    }

    /** Seconds since the run started. */
    public double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Seconds of each superstep's span (superstep 0 starts with the run). */
    public synchronized double[] superstepSeconds() {
        double[] seconds = new double[spans.size()];
        for (int i = 0; i < spans.size(); i++) {
            long[] span = spans.get(i);
            long start = i == 0 ? 0 : span[0];
            seconds[i] = span[1] == Long.MIN_VALUE || start == Long.MAX_VALUE ? 0 : Math.max(0, span[1] - start) / 1e9;
        }
        return seconds;
    }

    public synchronized void record(CallRecord call) {
        calls.add(call);
    }

    public synchronized List<CallRecord> calls() {
        return List.copyOf(calls);
    }
}
