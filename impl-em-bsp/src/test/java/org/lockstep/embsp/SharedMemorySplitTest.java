package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.Info;
import org.lockstep.api.Window;

/**
 * VPs share no memory, so {@code splitType(SHARED)} ({@code MPI_COMM_TYPE_SHARED}) must give each
 * rank a communicator of its own, on which a shared window can then be allocated (ompi-java-test's
 * onesided/WinAllocate). It gave the whole world, and the shared window on it was
 * UNSUPPORTED_OPERATION ("the ranks ... do not share memory").
 */
@Timeout(60)
class SharedMemorySplitTest {
    @Test
    void aSharedSplitIsEachRankAloneAndASharedWindowOnItIsTheRanksOwnMemory() {
        Map<Integer, String> seen = new ConcurrentHashMap<>();
        Simulation.run(TestJobs.job(4, 2, 256 << 10, 4096), w -> {
            Communicator shared = w.splitType(Communicator.SplitType.SHARED, w.rank());
            Window win = shared.allocateSharedWindow(64, 1, Info.EMPTY);
            MemorySegment mine = win.sharedQuery(0);
            mine.set(ValueLayout.JAVA_INT, 0, 100 + w.rank());
            win.fence();
            seen.put(w.rank(), shared.size() + " " + mine.byteSize() + " " + win.sharedQuery(0).get(ValueLayout.JAVA_INT, 0));
            win.close();
            shared.close();
        });
        for (int r = 0; r < 4; r++) {
            assertEquals("1 64 " + (100 + r), seen.get(r), "rank " + r + ": size of its shared communicator, window bytes, value");
        }
    }
}
