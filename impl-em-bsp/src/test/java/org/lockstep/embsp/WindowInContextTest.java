package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Window;
import org.lockstep.embsp.io.IoCategory;

/**
 * On EM-BSP a window lives in its VP's context (issue 16): its part is taken from the context's μ
 * bytes, so the context has that much less for anything else until the window is freed, and it is
 * swapped out and in with the context, so what other VPs put into it between supersteps is there
 * when its VP runs again. Four VPs on two partitions, so every VP is swapped out while others run.
 */
@Timeout(120)
class WindowInContextTest {
    private static final long MU = 64 << 10;
    private static final long PART = 40 << 10;
    /** More than the context has beside the window's part, less than it has without it. */
    private static final long BESIDE = MU - PART + (8 << 10);
    private static final int ROUNDS = 3;

    @Test
    void aWindowsPartIsContextMemoryAndKeepsWhatOthersPutAcrossSwaps() {
        Map<Integer, String> seen = new ConcurrentHashMap<>();
        RunReport report = Simulation.run(TestJobs.job(4, 2, MU, 4096), w -> {
            Window win = w.allocateWindow(PART, 8, Info.EMPTY);
            String full;
            try {
                w.allocate(BESIDE);
                full = "allocated";
            } catch (LockstepException e) {
                full = e.errorClass().name();
            }
            int next = (w.rank() + 1) % w.size();
            int prev = (w.rank() + w.size() - 1) % w.size();
            win.fence();
            StringBuilder got = new StringBuilder();
            for (int round = 0; round < ROUNDS; round++) {
                long value = 1000L * round + w.rank();
                win.put(MemorySegment.ofArray(new long[] {value}), 1, Datatype.LONG, next, round);
                win.fence();
                w.barrier(); // a superstep: VPs of the other partition run, this one may be swapped out
                got.append(win.segment().getAtIndex(ValueLayout.JAVA_LONG, round)).append(' ');
            }
            win.fence();
            win.free();
            MemorySegment after = w.allocate(BESIDE);
            seen.put(w.rank(), full + " " + got.toString().trim() + " " + after.byteSize() + " from " + prev);
            w.free(after);
        });
        for (int r = 0; r < 4; r++) {
            int prev = (r + 3) % 4;
            String values = (prev) + " " + (1000 + prev) + " " + (2000 + prev);
            assertEquals(ErrorClass.NO_MEM.name() + " " + values + " " + BESIDE + " from " + prev, seen.get(r),
                    "rank " + r + ": allocating beside the window, the values its neighbour put, allocating after free");
        }
        assertTrue(report.total().bytes(IoCategory.SWAP_OUT) > 0, "contexts were swapped out");
    }
}
