package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Info;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Window;

/**
 * A VP that polls a request ({@code test} in a loop, as ompi-java-test's {@code nice_recv} does
 * with {@code Thread.sleep} between tests) is running to the scheduler, so the deadlock check that
 * fails a blocked wait on a VP that has ended never fired: the poll went on for ever once its
 * peer had finished. The test fails with PROC_FAILED naming the peer instead; so does any wait of
 * a VP that serves a window (it polls too). A message the peer sent before it ended is still taken.
 */
@Timeout(60)
class PollOnEndedPeerTest {
    private static JobOptions job(int v, String threads) {
        return TestJobs.job(v, 2, 256 << 10, 4096).with(EmBspOptions.THREADS, threads);
    }

    /** Polls {@code request} until it completes; returns what its test threw. */
    private static LockstepException pollUntilItFails(Request request) {
        try {
            while (request.test().isEmpty()) {
                Thread.onSpinWait();
            }
        } catch (LockstepException e) {
            return e;
        }
        throw new AssertionError("the request completed");
    }

    /** {@code seen} is the typed error of a wait on a peer that ended: {@code errorClass}, saying {@code says}. */
    private static void assertPeerGone(Object seen, ErrorClass errorClass, String says) {
        ProcessFailedException e = assertInstanceOf(ProcessFailedException.class, seen);
        assertEquals(errorClass, e.errorClass());
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(strings = {"platform", "virtual", "sequential"})
    void testingAReceiveFromAVirtualProcessorThatFinishedFailsAndItsEarlierMessageIsStillTaken(String threads) {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        Simulation.run(job(2, threads), w -> {
            if (w.rank() == 1) {
                w.send(new int[] {41, 42}, 0, 5); // eager: buffered at rank 0, then rank 1 finishes
                return;
            }
            seen.put("gone", pollUntilItFails(w.irecv(new int[1], 1, 6)));
            int[] earlier = new int[2];
            Request r = w.irecv(earlier, 1, 5);
            while (r.test().isEmpty()) {
                Thread.onSpinWait();
            }
            seen.put("earlier", earlier);
        });
        assertPeerGone(seen.get("gone"), ErrorClass.PROC_FAILED, "rank 1 (VP 1) has ended");
        assertArrayEquals(new int[] {41, 42}, (int[]) seen.get("earlier"));
    }

    @Test
    void testingAReceiveFromAnySourceFailsOnceEveryOtherVirtualProcessorHasEnded() {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        Simulation.run(job(3, "platform"), w -> {
            if (w.rank() == 0) {
                seen.put("gone", pollUntilItFails(w.irecv(new int[1], Communicator.ANY_SOURCE, Communicator.ANY_TAG)));
            }
        });
        assertPeerGone(seen.get("gone"), ErrorClass.PROC_FAILED_PENDING, "ANY_SOURCE");
    }

    @Test
    void testingASynchronousSendToAVirtualProcessorThatFailedFails() {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        LockstepException run = assertThrows(LockstepException.class,
                () -> Simulation.run(job(2, "platform"), w -> {
                    if (w.rank() == 1) {
                        throw new IllegalStateException("VP 1 fails at once");
                    }
                    seen.put("gone", pollUntilItFails(w.issend(MemorySegment.ofArray(new int[] {7}), 1, Datatype.INT, 1, 3)));
                }));
        assertTrue(run.getMessage().contains("VP 1 fails at once"), run.getMessage());
        assertPeerGone(seen.get("gone"), ErrorClass.PROC_FAILED, "rank 1 (VP 1) has ended");
    }

    @Test
    void aBlockingReceiveOfAVirtualProcessorThatServesAWindowFailsWhenItsSourceHasEnded() {
        Map<String, Object> seen = new ConcurrentHashMap<>();
        Simulation.run(job(2, "platform"), w -> {
            Window win = w.allocateWindow(64, 1, Info.EMPTY);
            win.fence();
            if (w.rank() == 0) {
                try {
                    w.recv(new int[1], 1, 9); // rank 0 serves its window in this wait: it polls
                } catch (LockstepException e) {
                    seen.put("gone", e);
                }
            }
        });
        assertPeerGone(seen.get("gone"), ErrorClass.PROC_FAILED, "rank 1 (VP 1) has ended");
    }
}
