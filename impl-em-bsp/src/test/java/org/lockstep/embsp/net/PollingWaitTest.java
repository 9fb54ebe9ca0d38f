package org.lockstep.embsp.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.lockstep.api.LockstepException;

/**
 * A polling wait ends when its condition holds, when its check throws, and when its thread is
 * interrupted — the kit stops a stalled run so; a wait that ignored it would spin for ever, since
 * a park returns at once while the flag is set, and starve every run after it.
 */
class PollingWaitTest {
    @Test
    void anInterruptEndsTheWaitWithAnErrorThatNamesIt() {
        AtomicReference<Throwable> ended = new AtomicReference<>();
        AtomicBoolean flagKept = new AtomicBoolean();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                PollingWait.until(() -> false, () -> { }, this, "a frame that never comes");
            } catch (Throwable t) {
                ended.set(t);
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        await().atMost(Duration.ofSeconds(5)).until(() -> !waiter.isAlive());
        assertTrue(ended.get() instanceof LockstepException, () -> "ended with " + ended.get());
        assertEquals("[MPI_ERR_OTHER] interrupted while waiting for a frame that never comes", ended.get().getMessage());
        assertTrue(flagKept.get(), "the interrupt stays visible to the caller");
    }

    @Test
    void theCheckEndsTheWaitAndAConditionThatHoldsReturnsAtOnce() {
        LockstepException broken = new LockstepException(org.lockstep.api.ErrorClass.OTHER, "network failed");
        assertEquals(broken, assertThrows(LockstepException.class, () -> PollingWait.until(() -> false, () -> {
            throw broken;
        }, this, "anything")));
        PollingWait.until(() -> true, () -> {
            throw broken;
        }, this, "nothing");
    }
}
