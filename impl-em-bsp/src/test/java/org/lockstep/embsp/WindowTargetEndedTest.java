package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Window;

/**
 * A passive-target epoch on a VP that has failed: a fence epoch, then the target fails and its
 * origin locks it and gets from it. A VP with a window polls in its waits (to serve the window), so
 * the scheduler's deadlock check, which fails blocked waits whose peer has ended, never saw it: the
 * origin polled in its lock for ever. It fails with PROC_FAILED naming the target instead.
 */
@Timeout(120)
class WindowTargetEndedTest {
    @Test
    void aLockOnAVirtualProcessorThatFailedIsProcFailedInsteadOfAHang() {
        AtomicReference<Throwable> originSaw = new AtomicReference<>();
        LockstepException run = assertThrows(LockstepException.class, () -> Simulation.run(TestJobs.job(4, 2, 256 << 10, 4096), w -> {
            Window win = w.allocateWindow(64, 1, Info.EMPTY);
            int next = (w.rank() + 1) % w.size();
            win.fence();
            win.put(java.lang.foreign.MemorySegment.ofArray(new int[] {700 + w.rank()}), 1, Datatype.INT, next, 4L * w.rank());
            win.fence();
            if (w.rank() == 1) {
                throw new IllegalStateException("VP 1 fails after the fence epoch");
            }
            if (w.rank() == 0) {
                try {
                    win.lock(Window.LockType.SHARED, 1);
                    win.rget(java.lang.foreign.MemorySegment.ofArray(new int[1]), 1, Datatype.INT, 1, 0).await();
                    win.unlock(1);
                } catch (LockstepException e) {
                    originSaw.set(e);
                }
            }
        }));
        assertTrue(run.getMessage().contains("VP 1 fails after the fence epoch"), run.getMessage());
        ProcessFailedException e = assertInstanceOf(ProcessFailedException.class, originSaw.get(), String.valueOf(originSaw.get()));
        assertEquals(ErrorClass.PROC_FAILED, e.errorClass());
        assertTrue(e.getMessage().contains("rank 1 (VP 1) has ended"), e.getMessage());
    }
}
