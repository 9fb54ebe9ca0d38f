package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ErrorHandler;
import org.lockstep.api.FatalLockstepError;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;

/** A rank that throws or returns early must never leave the others waiting forever. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FailureDetectionTest {

    @Test
    void aReceiveFromARankThatThrewFailsWithProcFailed() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        IllegalStateException boom = new IllegalStateException("rank 1 crashed on purpose");
        LockstepException job = assertThrows(LockstepException.class, () -> TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                throw boom;
            }
            seen.set(assertThrows(ProcessFailedException.class, () -> world.recv(new byte[1], 1, 0)));
        }));
        assertEquals(ErrorClass.PROC_FAILED, seen.get().errorClass());
        assertEquals(1, seen.get().failedRank());
        assertTrue(seen.get().getMessage().contains("has failed"), seen.get().getMessage());
        assertEquals(boom, job.getCause(), "the job reports the rank's own failure");
    }

    /**
     * Under ErrorHandler.FATAL an error ends the rank even where the program catches
     * LockstepException: its peer's receive fails with PROC_FAILED and the job reports the fatal error.
     */
    @Test
    void anErrorUnderTheFatalHandlerEndsTheRankThoughTheProgramCatchesLockstepExceptions() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        Throwable job = assertThrows(Throwable.class, () -> TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                world.setErrorHandler(ErrorHandler.FATAL);
                try {
                    world.send(new int[] {1}, 5, 0);
                } catch (LockstepException caught) {
                    return; // what a program does under ERRORS_RETURN: not reached under FATAL
                }
            }
            seen.set(assertThrows(ProcessFailedException.class, () -> world.recv(new byte[1], 1, 0)));
        }));
        assertEquals(1, seen.get().failedRank());
        Throwable fatal = job instanceof FatalLockstepError ? job : job.getCause();
        assertEquals(FatalLockstepError.class, fatal.getClass(), "the job reports: " + job);
        assertEquals(ErrorClass.RANK, ((FatalLockstepError) fatal).errorClass());
    }

    @Test
    void aReceiveFromARankThatFinishedWithoutSendingFails() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                seen.set(assertThrows(ProcessFailedException.class, () -> world.recv(new byte[1], 1, 0)));
            }
        });
        assertEquals(1, seen.get().failedRank());
        assertTrue(seen.get().getMessage().contains("finished"), seen.get().getMessage());
    }

    @Test
    void messagesSentBeforeARankFinishedAreStillDelivered() {
        TestWorlds.run(2, world -> {
            if (world.rank() == 1) {
                world.send(new int[] {1}, 0, 0);
                world.send(new int[] {2}, 0, 0);
                return;
            }
            // Let rank 1 finish first: its messages must outlive it.
            org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> world.iprobe(1, 0).isPresent());
            int[] v = new int[1];
            world.recv(v, 1, 0);
            assertEquals(1, v[0]);
            world.recv(v, 1, 0);
            assertEquals(2, v[0]);
            assertThrows(ProcessFailedException.class, () -> world.recv(v, 1, 0));
        });
    }

    @Test
    void aWildcardReceiveFailsOnceNoRankIsLeftToSend() {
        AtomicReference<ProcessFailedException> seen = new AtomicReference<>();
        TestWorlds.run(3, world -> {
            if (world.rank() == 0) {
                seen.set(assertThrows(ProcessFailedException.class,
                        () -> world.recv(new byte[1], Communicator.ANY_SOURCE, Communicator.ANY_TAG)));
            }
        });
        assertEquals(ErrorClass.PROC_FAILED_PENDING, seen.get().errorClass());
    }

    @Test
    void aSynchronousSendToARankThatNeverReceivesFails() {
        AtomicReference<LockstepException> seen = new AtomicReference<>();
        TestWorlds.run(2, world -> {
            if (world.rank() == 0) {
                seen.set(assertThrows(ProcessFailedException.class,
                        () -> world.ssend(java.lang.foreign.MemorySegment.ofArray(new byte[4]), 4,
                                org.lockstep.api.Datatype.BYTE, 1, 0)));
            }
        });
        assertInstanceOf(ProcessFailedException.class, seen.get());
        assertEquals(1, ((ProcessFailedException) seen.get()).failedRank());
    }
}
