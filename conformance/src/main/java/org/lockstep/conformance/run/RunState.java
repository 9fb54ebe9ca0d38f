package org.lockstep.conformance.run;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** State shared by the ranks of one run and its monitor. */
final class RunState {
    final int ranks;
    final RunLimits limits;
    final AtomicReferenceArray<RankState> states;
    private final AtomicLong progress = new AtomicLong();
    private final ConcurrentHashMap<String, CountDownLatch> signals = new ConcurrentHashMap<>();
    final Phaser rendezvous;
    /** Signals raised without the provider, where the ranks are processes; null where they are this JVM's threads. */
    final SignalFiles signalFiles;
    private volatile String abortReason;

    RunState(int ranks, RunLimits limits) {
        this(ranks, limits, null);
    }

    RunState(int ranks, RunLimits limits, SignalFiles signalFiles) {
        this.signalFiles = signalFiles;
        this.ranks = ranks;
        this.limits = limits;
        this.states = new AtomicReferenceArray<>(ranks);
        for (int r = 0; r < ranks; r++) {
            states.set(r, new RankState(r, this));
        }
        this.rendezvous = new Phaser(ranks);
    }

    void progressed() {
        progress.incrementAndGet();
    }

    long progress() {
        return progress.get();
    }

    CountDownLatch signal(String name) {
        return signals.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    void abort(String reason) {
        abortReason = reason;
    }

    String abortReason() {
        String reason = abortReason;
        return reason != null || signalFiles == null ? reason : signalFiles.abortReason();
    }
}
