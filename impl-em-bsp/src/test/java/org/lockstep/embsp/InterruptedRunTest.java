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
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.RankProgram;

/**
 * A simulation whose VPs hang where no deadlock can be seen (half of them poll for ever, so not
 * every VP waits) ends when the thread that runs it is interrupted, as JUnit's {@code @Timeout}
 * does: with a typed error naming what each VP waited for, and the interrupt still set.
 */
@Timeout(120)
class InterruptedRunTest {
    @Test
    void anInterruptEndsAHungRunWithWhatEachVirtualProcessorWaitedFor() throws Exception {
        LockstepException e = interruptedOnceHung(2, program -> Simulation.run(TestJobs.job(2, 2, 256 << 10, 4096), program));
        assertEquals(ErrorClass.OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("VP 0 waits in recv from rank 1"), e.getMessage());
        assertTrue(e.getMessage().contains("VP 1 "), e.getMessage());
    }

    /**
     * The same hang on two real processors, threads of this JVM over the mailbox transport: the
     * world of threads that runs the processors passes the interrupt on (it joined them
     * uninterruptibly, so a hung multi-processor run outlived its test's timeout), and the run ends
     * with each processor's typed error.
     */
    @Test
    void anInterruptEndsAHungRunOnTwoRealProcessors() throws Exception {
        LockstepException e = interruptedOnceHung(4, program -> new EmBspProvider().runInThreads(TestJobs.job(4, 1, 256 << 10, 4096)
                .with(EmBspProvider.PROCESSORS, "2").with(EmBspOptions.FRAME, Long.toString(64 << 10)), program));
        assertTrue(e.getMessage().contains("VP 0 waits in recv from rank 1"), e.getMessage());
    }

    /**
     * Runs {@code run} of a program in which each even VP receives from the odd one after it and
     * the odd one polls for a message from it (neither is ever sent) on a thread of its own;
     * interrupts that thread once all {@code vps} VPs are in; returns what the run threw, after
     * checking that it says it was interrupted and that the thread's interrupt stayed set.
     */
    private static LockstepException interruptedOnceHung(int vps, Consumer<RankProgram> run) throws Exception {
        AtomicInteger started = new AtomicInteger();
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        RankProgram hung = w -> {
            started.incrementAndGet();
            int partner = w.rank() ^ 1; // on two processors VPs 0 and 1 are on the first, 2 and 3 on the second
            if (w.rank() % 2 == 0) {
                w.recv(new byte[1], partner, 7);
            } else {
                while (w.iprobe(partner, 7).isEmpty()) {
                    Thread.onSpinWait();
                }
            }
        };
        Thread runner = Thread.ofPlatform().start(() -> {
            try {
                run.accept(hung);
                ended.complete(null);
            } catch (Throwable t) {
                stillInterrupted.set(Thread.currentThread().isInterrupted());
                ended.complete(t);
            }
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> started.get() == vps);
        runner.interrupt();
        Throwable t = ended.get(60, TimeUnit.SECONDS);
        LockstepException e = assertInstanceOf(LockstepException.class, t, String.valueOf(t));
        assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
        assertTrue(stillInterrupted.get(), "the caller's interrupt is kept");
        runner.join(Duration.ofSeconds(10));
        return e;
    }
}
