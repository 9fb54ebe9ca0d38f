package org.lockstep.embsp.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.Location;

/**
 * The shared state of one collective call on one group, created by the first VP to arrive
 * (initial synchronisation: it is set up under the scheduler's lock, so later VPs never wait for
 * it) and dropped by the last to leave. Guarded by the scheduler's lock, except where a field
 * says otherwise.
 */
final class CallState {
    /** The collective's name; null while only frames from other processors have made the call here. */
    String operation;
    final long sequence;
    final int n;
    /** Its counted I/O and its bound. */
    final CallMeter io;

    /** Arrivals (or recordings); flag: all n have arrived. */
    final CompositeSignal arrivals = new CompositeSignal();
    /** VPs done with their part; flag: all that must be done are (final synchronisation). */
    final CompositeSignal finished = new CompositeSignal();
    /** Flag: the root has arrived and published its buffer (rooted synchronisation). */
    final CompositeSignal rootReady = new CompositeSignal();
    /** Reductions: per rank, set when the combined prefix reaches it (made on first use). */
    private final CompositeSignal[] turns;

    int departed;
    int root = -1;

    // rooted calls
    Location rootBuffer;
    long[] rootCounts;
    long[] rootDisplacements;

    // all-to-all calls: by rank
    final Location[] sendBuffers;
    final Location[] recvBuffers;
    final long[][] recvCounts;
    final long[][] recvDisplacements;
    /** Indirect Alltoallv: what each rank here sends, by rank. */
    final long[][] sendCounts;
    final List<Integer> recordedOrder = new ArrayList<>();
    BoundaryCache cache;

    // reductions
    Arena arena;
    MemorySegment accumulator;
    MemorySegment scratch;
    final Location[] contributions;
    final boolean[] contributed;
    int combinedUpTo = -1;
    boolean combining;
    /** Staged Allgather(v) and Alltoall: every message of the call, in memory (made once by the first VP). */
    MemorySegment staged;
    /** Threads still sending the call's running value to other processors: the last VP out waits for them. */
    int sending;
    /** The reduction's operation, count and type, once a VP here has contributed (the agent folds with them). */
    org.lockstep.api.Op op;
    long count;
    org.lockstep.api.Datatype type;

    // communicator creation
    Group dupGroup;
    final int[] colors;
    final int[] keys;
    Group[] splitGroups;

    /** The exchanges with other real processors, when the group spans several (else null). */
    final SpanningState span;

    CallState(String operation, long sequence, Group group, long block) {
        this(operation, sequence, group.size(), block, group.spansProcessors() ? new SpanningState(group.size(), group.otherProcessors()) : null);
        if (span != null) {
            span.tokenHere = group.isLocal(0);
        }
    }

    CallState(String operation, long sequence, int n, long block, SpanningState span) {
        this.span = span;
        this.operation = operation;
        this.io = new CallMeter(block);
        this.sequence = sequence;
        this.n = n;
        this.sendBuffers = new Location[n];
        this.recvBuffers = new Location[n];
        this.recvCounts = new long[n][];
        this.recvDisplacements = new long[n][];
        this.sendCounts = new long[n][];
        this.contributions = new Location[n];
        this.contributed = new boolean[n];
        this.colors = new int[n];
        this.keys = new int[n];
        this.turns = new CompositeSignal[n];
    }

    /**
     * The signal of rank {@code rank}'s turn in a reduction (lock held): set once ranks up to
     * {@code rank - 1} are combined (Scan) or once {@code rank}'s contribution is (Reduce), so that
     * each step wakes one VP, not every waiter.
     */
    CompositeSignal turn(int rank) {
        CompositeSignal t = turns[rank];
        if (t == null) {
            t = new CompositeSignal();
            turns[rank] = t;
        }
        return t;
    }

    /** Reduction buffers of {@code bytes}, made once (lock held). */
    void ensureAccumulator(long bytes) {
        if (arena == null) {
            arena = Arena.ofShared();
            accumulator = arena.allocate(Math.max(1, bytes), Long.BYTES).asSlice(0, bytes);
            scratch = arena.allocate(Math.max(1, bytes), Long.BYTES).asSlice(0, bytes);
        }
    }

    /** The staged exchange's area of {@code bytes}, made once (lock held). */
    MemorySegment ensureStaged(long bytes) {
        if (staged == null) {
            if (arena == null) {
                arena = Arena.ofShared();
            }
            staged = arena.allocate(Math.max(1, bytes), Long.BYTES).asSlice(0, bytes);
        }
        return staged;
    }

    /** The combined value becomes the scratch buffer's (the combiner's own work; no lock needed). */
    void swapAccumulator() {
        MemorySegment t = accumulator;
        accumulator = scratch;
        scratch = t;
    }

    /** Frees the call's memory (last VP out). */
    void release() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
        if (cache != null) {
            cache.releaseAll();
        }
    }
}
