package org.lockstep.embsp;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A simulation whose VPs hang where no deadlock can be seen (one polls for ever, so not every VP
 * waits) ends when the thread that runs it is interrupted, as JUnit's {@code @Timeout} does: with a
 * typed error naming what each VP waited for, and the interrupt still set.
 */
@Timeout(120)
class InterruptedRunTest {
    @Test
    void anInterruptEndsAHungRunWithWhatEachVirtualProcessorWaitedFor() throws Exception {
        AtomicInteger waiting = new AtomicInteger();
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread runner = Thread.ofPlatform().start(() -> {
            try {
                Simulation.run(TestJobs.job(2, 2, 256 << 10, 4096), w -> {
                    waiting.incrementAndGet();
                    if (w.rank() == 0) {
                        w.recv(new byte[1], 1, 7); // never sent
                    } else {
                        while (w.iprobe(0, 7).isEmpty()) {
                            Thread.onSpinWait(); // never sent either: polls for ever
                        }
                    }
                });
                ended.complete(null);
            } catch (Throwable t) {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
                ended.complete(t);
            }
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> waiting.get() == 2);
        runner.interrupt();
        Throwable t = ended.get(60, TimeUnit.SECONDS);
        LockstepException e = assertInstanceOf(LockstepException.class, t, String.valueOf(t));
        assertEquals(ErrorClass.OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
        assertTrue(e.getMessage().contains("VP 0 waits in recv from rank 1"), e.getMessage());
        assertTrue(e.getMessage().contains("VP 1 "), e.getMessage());
        assertTrue(stillInterrupted.get(), "the caller's interrupt is kept");
        runner.join(Duration.ofSeconds(10));
    }
}
