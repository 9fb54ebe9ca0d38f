package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Datatype;
import org.lockstep.api.JobOptions;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.memory.WriteWatch;

/**
 * A swap-out writes back only the allocated blocks written since the swap-in — by the program
 * through its segments, or by a delivery — and no write is lost: every VP checks its whole
 * context after every superstep.
 */
class SwapsOnlyWrittenBlocksTest {
    private static final int VPS = 8;
    private static final long BLOCK = 4096;
    private static final long BLOCKS = 16;
    private static final int SUPERSTEPS = 6;

    @Test
    void withoutTheWatchOrLazySwapInEveryAllocatedBlockIsWrittenBack() {
        RunReport report = Simulation.run(TestJobs.job(VPS, 1, 256 << 10, BLOCK).with(EmBspOptions.LAZY_SWAP_IN, "false"), w -> {
            MemorySegment state = w.allocate(BLOCKS * BLOCK);
            state.fill((byte) w.rank());
            for (int step = 0; step < 3; step++) {
                w.barrier();
            }
        });
        assertEquals(report.total().bytes(IoCategory.SWAP_IN), report.total().bytes(IoCategory.SWAP_OUT), "eager swaps: out as much as in");
    }

    @Test
    void unchangedBlocksAreNotWrittenBackAndNoWriteIsLost() {
        assumeTrue(kernelWatchesWrites(), "no kernel write watch: every allocated block is written back");
        for (String io : new String[] {"sync", "async"}) {
            JobOptions job = TestJobs.job(VPS, 1, 256 << 10, BLOCK).with(EmBspOptions.IO, io).with(EmBspOptions.WRITE_WATCH, "true");
            RunReport report = Simulation.run(job, w -> {
                MemorySegment state = w.allocate(BLOCKS * BLOCK);
                MemorySegment gathered = w.allocate(8L * w.size());
                long[] expected = new long[(int) (BLOCKS * BLOCK / 8)];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = w.rank() * 1_000_000L + i;
                    state.setAtIndex(ValueLayout.JAVA_LONG, i, expected[i]);
                }
                for (int step = 0; step < SUPERSTEPS; step++) {
                    if (step % 2 == 1) {
                        // one long in block 5, written through the segment the program holds
                        int at = (int) (5 * BLOCK / 8) + step;
                        expected[at] = -step - w.rank();
                        state.setAtIndex(ValueLayout.JAVA_LONG, at, expected[at]);
                    }
                    MemorySegment mine = w.allocate(8);
                    mine.set(ValueLayout.JAVA_LONG, 0, step * 100L + w.rank());
                    w.allgather(mine, 1, Datatype.LONG, gathered);
                    w.free(mine);
                    for (int i = 0; i < expected.length; i++) {
                        assertEquals(expected[i], state.getAtIndex(ValueLayout.JAVA_LONG, i),
                                "VP " + w.rank() + " long " + i + " after superstep " + step);
                    }
                    for (int r = 0; r < w.size(); r++) {
                        assertEquals(step * 100L + r, gathered.getAtIndex(ValueLayout.JAVA_LONG, r), "delivered value of rank " + r);
                    }
                }
            });
            long out = report.total().bytes(IoCategory.SWAP_OUT);
            long in = report.total().bytes(IoCategory.SWAP_IN);
            long state = BLOCKS * BLOCK;
            // the state once, then per superstep at most block 5 and the small buffers' blocks
            assertTrue(out <= VPS * (state + SUPERSTEPS * 3 * BLOCK), io + ": swapped out " + out + " bytes, in " + in);
            assertTrue(in >= VPS * (SUPERSTEPS - 1) * state, io + ": every superstep still swaps the state in: " + in);
        }
    }

    private static boolean kernelWatchesWrites() {
        try (Arena arena = Arena.ofConfined(); WriteWatch watch = WriteWatch.over(List.of(arena.allocate(BLOCK, BLOCK)))) {
            return watch.available();
        }
    }
}
