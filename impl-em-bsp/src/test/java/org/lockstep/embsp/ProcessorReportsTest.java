package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoSnapshot;
import org.lockstep.embsp.sim.CallRecord;

/**
 * The closing line of a run on several real processors: each call's I/O and bounds summed over the
 * processors, and {@code within_bounds} false if any processor's share of a call was over its own
 * bound — even when the sums are within theirs.
 */
class ProcessorReportsTest {
    private static final long B = 4096;

    /** A report of one processor with one bcast whose swap I/O is {@code swapped} against a swap bound of {@code swapBound}. */
    private static RunReport processor(RunReport shape, long swapped, long swapBound) {
        long[] bytes = new long[IoCategory.values().length];
        bytes[IoCategory.SWAP_OUT.ordinal()] = swapped / 2;
        bytes[IoCategory.SWAP_IN.ordinal()] = swapped - swapped / 2;
        IoSnapshot io = new IoSnapshot(bytes, new long[bytes.length]);
        CallRecord bcast = new CallRecord("bcast", 1, 0, 16, B, io, swapBound, 16 * 2 * B, 1L << 30, 0, B, 0.01, 100, 200, true);
        return new RunReport(shape.options(), shape.ioDriver(), shape.threadDriver(), shape.direct(), shape.striped(), 1, 0.1, io,
                shape.pointToPoint(), List.of(io), new double[] {0.1}, List.of(bcast), bcast.boundBytes(), 0, 0, -1, -1, 100,
                new long[] {1});
    }

    @Test
    void aProcessorOverItsBoundIsNotHiddenByAnotherUnderIt() {
        RunReport shape = Simulation.run(TestJobs.job(2, 1, 64 << 10, B), w -> w.barrier());
        RunReport over = processor(shape, 3 * 8 * B, 2 * 8 * B);
        RunReport under = processor(shape, 0, 2 * 8 * B);
        assertFalse(over.withinBounds(), "one processor's share alone");
        RunReport sum = ProcessorReports.merge(over, List.of(ProcessorReports.encode(over), ProcessorReports.encode(under)));
        CallRecord call = sum.calls().getFirst();
        assertEquals(3 * 8 * B, call.counted().swapBytes(), "swap bytes summed");
        assertEquals(4 * 8 * B, call.swapBoundBytes(), "swap bounds summed: the sum alone is within");
        assertFalse(call.withinBound(), "processor 0 was over its own bound");
        assertTrue(sum.keyValueLine().contains(" within_bounds=false "), sum.keyValueLine());
        RunReport fine = ProcessorReports.merge(under, List.of(ProcessorReports.encode(under), ProcessorReports.encode(under)));
        assertTrue(fine.keyValueLine().contains(" within_bounds=true "), fine.keyValueLine());
    }
}
