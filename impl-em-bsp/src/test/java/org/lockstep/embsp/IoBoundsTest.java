package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Op;
import org.lockstep.embsp.comm.IoBounds;
import org.lockstep.embsp.sim.CallRecord;

/**
 * The simulator's counted I/O against the bounds of the thesis's analysis (see {@link IoBounds}),
 * over a grid of (v, k, μ, B, D): every collective call must keep within its bound, and a
 * barrier, where the analysis is exact, must swap exactly the VPs that have to give up their
 * partition, once each.
 */
class IoBoundsTest {
    /** Every VP keeps this fraction of μ allocated, so that swaps move real volume. */
    private static final int STATE_FRACTION = 4;

    static Stream<Arguments> grid() {
        List<Arguments> all = new ArrayList<>();
        for (int v : new int[] {4, 9}) {
            for (int k : new int[] {1, 3}) {
                for (long b : new long[] {4096, 16384}) {
                    for (int d : new int[] {1, 2}) {
                        all.add(Arguments.of(v, k, 64 * b, b, d));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "v={0} k={1} mu={2} B={3} D={4}")
    @MethodSource("grid")
    void countedIoKeepsWithinTheBound(int v, int k, long mu, long b, int d) {
        JobOptions job = TestJobs.withDisks(TestJobs.job(v, k, mu, b), d);
        long omega = 2 * b + 123;
        RunReport report = Simulation.run(job, w -> everyCollective(w, mu, omega));
        List<CallRecord> over = report.calls().stream().filter(c -> !c.withinBound()).toList();
        assertTrue(over.isEmpty(), () -> "over the bound:\n" + over.stream().map(CollectivesTest::describe)
                .collect(Collectors.joining("\n")));
        Map<String, CallRecord> byOperation = new TreeMap<>();
        report.calls().forEach(c -> byOperation.putIfAbsent(c.operation(), c));
        assertEquals(List.of("allgather", "allreduce", "alltoall", "barrier", "bcast", "gather", "reduce",
                "reduce_scatter_block", "scan", "scatter"), List.copyOf(byOperation.keySet()));
        // the state each VP swaps: μ/4 plus the buffers of the call, all block-aligned by now
        CallRecord barrier = byOperation.get("barrier");
        long perVp = barrier.swapBoundBytes() / (2L * v);
        assertEquals(2L * (v - k) * perVp, barrier.counted().swapBytes(),
                "a barrier swaps out and in exactly the v - k VPs that must give up their partition");
        if (v > k) {
            assertTrue(report.total().swapBytes() > 0 && report.total().deliveryBytes() > 0, report.keyValueLine());
        }
        long thesis = IoBounds.thesis("alltoall", v, mu, omega, b);
        assertTrue(byOperation.get("alltoall").counted().totalBytes() <= thesis);
    }

    @Test
    void theBoundsHoldWithAsynchronousIoAndTheSequentialDriverToo() {
        long b = 8192;
        long mu = 64 * b;
        JobOptions job = TestJobs.withDisks(TestJobs.job(7, 2, mu, b), 3).with(EmBspOptions.IO, "async")
                .with(EmBspOptions.THREADS, "sequential").with(EmBspOptions.LAYOUT, "striped");
        RunReport report = Simulation.run(job, w -> everyCollective(w, mu, 2 * b + 7));
        assertTrue(report.striped());
        assertTrue(report.withinBounds(), () -> report.calls().stream().map(CollectivesTest::describe)
                .collect(Collectors.joining("\n")));
    }

    /** One call of each collective with ω-byte messages; checks the VP's state survives every swap. */
    static void everyCollective(Communicator w, long mu, long omega) {
        int n = w.size();
        int r = w.rank();
        MemorySegment state = w.allocate(mu / STATE_FRACTION);
        CollectiveChecks.fill(state, 9000 + r);
        w.barrier();
        MemorySegment one = w.allocate(omega);
        MemorySegment all = w.allocate(omega * n);
        if (r == n - 1) {
            CollectiveChecks.fill(one, 1);
        }
        w.bcast(one, omega, Datatype.BYTE, n - 1);
        CollectiveChecks.expect(one, 0, omega, 1, "bcast");
        CollectiveChecks.fill(one, 10 + r);
        w.gather(one, omega, Datatype.BYTE, r == 0 ? all : null, 0);
        if (r == 0) {
            for (int i = 0; i < n; i++) {
                CollectiveChecks.expect(all, i * omega, omega, 10 + i, "gather");
            }
        }
        if (r == 1 % n) {
            for (int i = 0; i < n; i++) {
                CollectiveChecks.fill(all.asSlice(i * omega, omega), 20 + i);
            }
        }
        w.scatter(all, omega, Datatype.BYTE, one, 1 % n);
        CollectiveChecks.expect(one, 0, omega, 20 + r, "scatter");
        w.allgather(one, omega, Datatype.BYTE, all);
        for (int i = 0; i < n; i++) {
            CollectiveChecks.expect(all, i * omega, omega, 20 + i, "allgather");
        }
        MemorySegment back = w.allocate(omega * n);
        for (int j = 0; j < n; j++) {
            CollectiveChecks.fill(all.asSlice(j * omega, omega), CollectiveChecks.seed(r, j));
        }
        w.alltoall(all, omega, Datatype.BYTE, back);
        for (int j = 0; j < n; j++) {
            CollectiveChecks.expect(back, j * omega, omega, CollectiveChecks.seed(j, r), "alltoall");
        }
        long longs = omega / 8;
        MemorySegment x = all.asSlice(0, longs * 8);
        MemorySegment y = back.asSlice(0, longs * 8);
        for (long i = 0; i < longs; i++) {
            x.setAtIndex(ValueLayout.JAVA_LONG, i, r + i);
        }
        w.allreduce(x, y, longs, Datatype.LONG, Op.SUM);
        CollectiveChecks.expectLong(y.getAtIndex(ValueLayout.JAVA_LONG, longs - 1), (long) n * (n - 1) / 2 + n * (longs - 1), "allreduce");
        w.reduce(x, y, longs, Datatype.LONG, Op.MAX, 0);
        long block = longs / n;
        w.reduceScatterBlock(all.asSlice(0, block * n * 8), back.asSlice(0, block * 8), block, Datatype.LONG, Op.SUM);
        w.scan(x, y, longs, Datatype.LONG, Op.SUM);
        CollectiveChecks.expectLong(y.getAtIndex(ValueLayout.JAVA_LONG, 0), (long) r * (r + 1) / 2, "scan");
        CollectiveChecks.expect(state, 0, state.byteSize(), 9000 + r, "state after every collective");
        w.free(back);
        w.free(all);
        w.free(one);
        w.free(state);
    }
}
