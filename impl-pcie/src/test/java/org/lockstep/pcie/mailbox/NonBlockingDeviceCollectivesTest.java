package org.lockstep.pcie.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;

/**
 * The non-blocking barrier, broadcast and allreduce on the device: several in flight on one
 * communicator beside point-to-point, completed in different orders on different ranks, give the
 * blocking results and send no message (the point-to-point schedules, asked for with
 * {@code lockstep.collectives.nonblocking=schedules}, do); they move while their rank blocks in a
 * receive (the endpoint's progress); a member that is gone fails them with PROC_FAILED; the same
 * on threads and in launched processes.
 */
class NonBlockingDeviceCollectivesTest {
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static JobOptions options(int ranks, String barrier) {
        JobOptions options = TestWorlds.options(ranks).with(MailboxOptions.HEAP_PER_RANK, "4m");
        return barrier.isEmpty() ? options : options.with(MailboxOptions.BARRIER, barrier);
    }

    @ParameterizedTest(name = "{0} ranks, barrier {1}")
    @CsvSource({"2, ''", "3, flags", "3, leader", "3, counter", "4, ''", "5, leader", "5, counter"})
    void onTheDeviceTheyGiveTheBlockingResultsWithoutAMessage(int ranks, String barrier) {
        ConcurrentHashMap<Integer, Long> sent = new ConcurrentHashMap<>();
        assertTimeoutPreemptively(BOUND, () -> TestWorlds.run(options(ranks, barrier),
                world -> sent.put(world.rank(), NonBlockingDeviceProgram.run(world))));
        for (int rank = 0; rank < ranks; rank++) {
            assertEquals(NonBlockingDeviceProgram.ROUNDS, sent.get(rank), "rank " + rank + " sent only its ring messages");
        }
    }

    @Test
    void asPointToPointSchedulesTheySendMessages() {
        ConcurrentHashMap<Integer, Long> sent = new ConcurrentHashMap<>();
        assertTimeoutPreemptively(BOUND, () -> TestWorlds.run(options(3, "").with(MailboxOptions.NONBLOCKING_COLLECTIVES, "schedules"),
                world -> sent.put(world.rank(), NonBlockingDeviceProgram.run(world))));
        for (int rank = 0; rank < 3; rank++) {
            assertTrue(sent.get(rank) > NonBlockingDeviceProgram.ROUNDS, "rank " + rank + " sent " + sent.get(rank));
        }
        LockstepException bad = assertThrows(LockstepException.class, () -> TestWorlds.run(
                options(2, "").with(MailboxOptions.NONBLOCKING_COLLECTIVES, "threads"), world -> { }));
        assertEquals(ErrorClass.ARG, bad.errorClass());
        assertTrue(bad.getMessage().contains("threads"), bad.getMessage());
    }

    /**
     * Rank 0 starts a broadcast of three chunks and blocks in a receive that rank 1 answers only
     * once its own part of the broadcast is done — which needs rank 0 to have consumed the first
     * chunk: only the endpoint's progress, run by the blocked receive, can do that; without it the
     * two wait for each other until the bound. (Whether rank 0's part is complete when its receive
     * returns is a race: the token may be matched before the last chunk is copied.)
     */
    @Test
    void aRankBlockedInAReceiveKeepsItsBroadcastMoving() {
        assertTimeoutPreemptively(BOUND, () -> TestWorlds.run(options(2, ""), world -> {
            int n = NonBlockingDeviceProgram.LARGE;
            MemorySegment buffer = world.rank() == 1 ? TestWorlds.pattern(1, 0, 9, n) : MemorySegment.ofArray(new byte[n]);
            Request bcast = world.ibcast(buffer, n, Datatype.BYTE, 1);
            long[] token = {42};
            if (world.rank() == 0) {
                world.recv(MemorySegment.ofArray(token), 1, Datatype.LONG, 1, 5);
                bcast.await();
                assertEquals(-1, TestWorlds.firstMismatch(buffer, 1, 0, 9, n));
            } else {
                bcast.await();
                world.send(MemorySegment.ofArray(token), 1, Datatype.LONG, 0, 5);
            }
            bcast.await();
        }));
    }

    /** A member that ends before it arrives fails the others' ibarrier and ibcast with PROC_FAILED naming it, never a hang. */
    @ParameterizedTest(name = "barrier {0}")
    @CsvSource({"flags", "leader", "counter"})
    void aGoneMemberFailsThemInsteadOfHangingThem(String barrier) {
        int victim = 1;
        ConcurrentHashMap<Integer, ProcessFailedException> seen = new ConcurrentHashMap<>();
        assertTimeoutPreemptively(BOUND, () -> assertThrows(LockstepException.class, () -> TestWorlds.run(options(3, barrier), world -> {
            world.barrier(); // every rank is up
            if (world.rank() == victim) {
                throw new IllegalStateException("rank " + victim + " fails on purpose");
            }
            Request barrierRequest = world.ibarrier();
            Request bcast = world.ibcast(MemorySegment.ofArray(new long[2]), 2, Datatype.LONG, victim);
            seen.put(world.rank(), assertThrows(ProcessFailedException.class, barrierRequest::await));
            assertThrows(ProcessFailedException.class, bcast::await, "the collective after the failed one fails too");
        })));
        assertEquals(2, seen.size(), "every survivor saw the failure: " + seen.keySet());
        seen.values().forEach(e -> assertEquals(victim, e.failedRank(), e.getMessage()));
    }

    @ParameterizedTest(name = "{0} processes, {1}")
    @CsvSource({"2, device", "3, device", "3, schedules"})
    void inLaunchedProcessesToo(int ranks, String where) throws Exception {
        List<String> out = PeerProcesses.run("nbc-" + ranks + where, NonBlockingDevicePeer.class, new int[ranks],
                (device, rank, jobKey) -> List.of(device.toString(), Integer.toString(rank), Integer.toString(ranks), jobKey, where));
        for (int rank = 0; rank < ranks; rank++) {
            long sent = PeerProcesses.value(out.get(rank), "sent");
            if (where.equals("device")) {
                assertEquals(NonBlockingDeviceProgram.ROUNDS, sent, "rank " + rank + " sent only its ring messages: " + out.get(rank));
            } else {
                assertTrue(sent > NonBlockingDeviceProgram.ROUNDS, "rank " + rank + ": " + out.get(rank));
            }
        }
    }
}
