package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;

/** Point-to-point messages between virtual processors, with MPI's matching, under EM-BSP. */
class PointToPointTest {
    private static final long B = 4096;

    private static JobOptions job(int v, int k, String threads) {
        return TestJobs.job(v, k, 256 << 10, B).with(EmBspOptions.THREADS, threads);
    }

    @ParameterizedTest(name = "threads={0}")
    @ValueSource(strings = {"platform", "virtual", "sequential"})
    void largeMessagesReachSwappedOutReceiversIntact(String threads) {
        // 6 VPs on 2 cores: receivers wait swapped out while senders deliver into their contexts on disk,
        // at offsets that straddle blocks (read-modify-write of the partial blocks); messages above the
        // eager limit are read by the receiver from the sender's (swapped-out) context instead
        RunReport report = Simulation.run(job(6, 2, threads), w -> {
            int r = w.rank();
            int n = w.size();
            MemorySegment pad = w.allocate(100 + 64L * r);
            long length = 70_000 + 1111L * r;
            MemorySegment out = w.allocate(length);
            CollectiveChecks.fill(out, 100 + r);
            int to = (r + 1) % n;
            int from = (r + n - 1) % n;
            long inLength = 70_000 + 1111L * from;
            MemorySegment in = w.allocate(inLength);
            if (r % 2 == 0) {
                Status s = w.recv(in, inLength, Datatype.BYTE, from, 3);
                w.send(out, length, Datatype.BYTE, to, 3);
                assertEquals(from, s.source());
                assertEquals(inLength, s.byteCount());
            } else {
                w.send(out, length, Datatype.BYTE, to, 3);
                w.recv(in, inLength, Datatype.BYTE, from, 3);
            }
            CollectiveChecks.expect(in, 0, inLength, 100 + from, "message from " + from + " at " + r);
            w.free(pad);
        });
        assertTrue(report.pointToPoint().deliveryBytes() > 0, "some messages went to or came from disk: " + report.keyValueLine());
    }

    /** Sends 0 … 19 to {@code dest}, even numbers with tag 10, odd ones with tag 11. */
    static void sendAlternatingTags(Communicator w, int dest) {
        for (int i = 0; i < 20; i++) {
            w.send(new long[] {i}, dest, i % 2 == 0 ? 10 : 11);
        }
    }

    /**
     * Receives what {@link #sendAlternatingTags} sent from {@code source}: tag 11 first (matching by
     * tag), then the rest by ANY_SOURCE and ANY_TAG — each tag in send order.
     */
    static void receiveOddTagsFirst(Communicator w, int source) {
        long[] got = new long[1];
        for (int i = 1; i < 20; i += 2) {
            w.recv(got, source, 11);
            assertEquals(i, got[0]);
        }
        for (int i = 0; i < 20; i += 2) {
            Status s = w.recv(got, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
            assertEquals(i, got[0]);
            assertEquals(10, s.tag());
            assertEquals(source, s.source());
        }
    }

    @Test
    void messagesFromOneSenderDoNotOvertakeAndTagsSelect() {
        Simulation.run(job(3, 1, "virtual"), w -> {
            if (w.rank() == 0) {
                sendAlternatingTags(w, 1);
                w.send(new long[] {-1}, 2, 5);
            } else if (w.rank() == 1) {
                receiveOddTagsFirst(w, 0);
            } else {
                long[] got = new long[1];
                Status s = w.recv(got, Communicator.ANY_SOURCE, 5);
                assertEquals(-1, got[0]);
                assertEquals(0, s.source());
            }
        });
    }

    @Test
    void truncationFillsTheBufferAndReportsTheMessage() {
        Simulation.run(job(2, 1, "virtual"), w -> {
            if (w.rank() == 0) {
                w.send(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 1, 0);
                w.send(new byte[] {9}, 1, 1);
            } else {
                byte[] small = new byte[3];
                TruncationException e = assertThrows(TruncationException.class, () -> w.recv(small, 0, 0));
                assertEquals(8, e.messageBytes());
                assertEquals(3, e.status().byteCount());
                assertEquals(ErrorClass.TRUNCATE, e.errorClass());
                assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), List.of(small[0], small[1], small[2]));
                byte[] next = new byte[1];
                w.recv(next, 0, 1);
                assertEquals(9, next[0], "the truncated message was consumed, the next one is intact");
            }
        });
    }

    @Test
    void probeSeesAMessageWithoutTakingItAndIprobePollsUntilOneArrives() {
        Simulation.run(job(3, 1, "sequential"), w -> {
            if (w.rank() == 0) {
                w.send(new int[] {1, 2, 3}, 1, 42);
                w.send(new int[] {7}, 2, 1);
            } else if (w.rank() == 1) {
                Status s = w.probe(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                assertEquals(42, s.tag());
                assertEquals(3, s.count(Datatype.INT));
                int[] got = new int[3];
                w.recv(got, s.source(), s.tag());
                assertEquals(List.of(1, 2, 3), Arrays.stream(got).boxed().toList());
                assertTrue(w.iprobe(0, Communicator.ANY_TAG).isEmpty(), "nothing more from rank 0");
            } else {
                Optional<Status> seen = Optional.empty();
                int polls = 0;
                while (seen.isEmpty()) {
                    seen = w.iprobe(0, 1);
                    polls++;
                    assertTrue(polls < 100_000, "iprobe lets the sender run");
                }
                int[] got = new int[1];
                w.recv(got, 0, 1);
                assertEquals(7, got[0]);
            }
        });
    }

    @Test
    void synchronousSendCompletesOnlyOnceTheReceiveHasMatched() {
        ConcurrentHashMap<String, Boolean> seen = new ConcurrentHashMap<>();
        Simulation.run(job(2, 2, "platform"), w -> {
            if (w.rank() == 0) {
                Request s = w.issend(MemorySegment.ofArray(new long[] {5}), 1, Datatype.LONG, 1, 0);
                // rank 1 waits for this message before it receives the synchronous one
                w.send(new long[] {1}, 1, 9);
                s.await();
                seen.put("ssend done", true);
            } else {
                long[] got = new long[1];
                w.recv(got, 0, 9);
                assertFalse(seen.containsKey("ssend done"), "ssend completed before its receive was posted");
                w.recv(got, 0, 0);
                assertEquals(5, got[0]);
            }
        });
        assertTrue(seen.get("ssend done"));
    }

    @Test
    void unmatchedReceivesCanBeCancelledAndNonBlockingCallsMix() {
        Simulation.run(job(4, 2, "virtual"), w -> {
            int r = w.rank();
            int n = w.size();
            Request never = w.irecv(new byte[4], (r + 1) % n, 99);
            never.cancel();
            assertTrue(never.await().cancelled());
            long[][] in = new long[n][1];
            Request[] reqs = new Request[2 * n];
            for (int q = 0; q < n; q++) {
                reqs[q] = w.irecv(in[q], q, 1);
            }
            for (int q = 0; q < n; q++) {
                reqs[n + q] = w.isend(new long[] {r * 100L + q}, q, 1);
            }
            Request.waitAll(reqs);
            for (int q = 0; q < n; q++) {
                assertEquals(q * 100L + r, in[q][0]);
            }
            Request b = w.ibarrier();
            b.await();
            MemorySegment x = w.allocate(8);
            x.set(ValueLayout.JAVA_LONG, 0, r);
            MemorySegment y = w.allocate(8);
            Request sum = w.iallreduce(x, y, 1, Datatype.LONG, org.lockstep.api.Op.SUM);
            MemorySegment msg = w.allocate(3000);
            if (r == 1) {
                CollectiveChecks.fill(msg, 77);
            }
            Request bc = w.ibcast(msg, 3000, Datatype.BYTE, 1);
            while (sum.test().isEmpty()) {
                Thread.onSpinWait();
            }
            assertEquals((long) n * (n - 1) / 2, y.get(ValueLayout.JAVA_LONG, 0));
            bc.await();
            CollectiveChecks.expect(msg, 0, 3000, 77, "ibcast at " + r);
        });
    }

    @Test
    void aDeadlockIsReportedInsteadOfHanging() {
        LockstepException e = assertThrows(LockstepException.class, () -> Simulation.run(job(3, 1, "virtual"), w -> {
            int r = w.rank();
            w.recv(new byte[1], (r + 1) % w.size(), 0);
        }));
        assertEquals(ErrorClass.OTHER, e.errorClass());
        assertTrue(e.getMessage().contains("deadlock"), e.getMessage());
        assertTrue(e.getMessage().contains("recv from rank"), e.getMessage());
    }

    @Test
    void aFailedVpIsTheCauseAndItsWaitersFailToo() {
        List<Throwable> waiters = new CopyOnWriteArrayList<>();
        LockstepException e = assertThrows(LockstepException.class, () -> Simulation.run(job(4, 2, "platform"), w -> {
            if (w.rank() == 2) {
                throw new IllegalStateException("rank 2 gives up");
            }
            try {
                w.barrier();
            } catch (LockstepException failed) {
                waiters.add(failed);
                throw failed;
            }
        }));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(3, waiters.size());
        for (Throwable t : waiters) {
            ProcessFailedException p = assertInstanceOf(ProcessFailedException.class, t);
            assertEquals(2, p.failedRank());
        }
    }

    @Test
    void badArgumentsAreRejectedBeforeAnythingIsSent() {
        Simulation.run(job(2, 1, "virtual"), w -> {
            assertEquals(ErrorClass.RANK, assertThrows(LockstepException.class, () -> w.send(new byte[1], 2, 0)).errorClass());
            assertEquals(ErrorClass.TAG, assertThrows(LockstepException.class, () -> w.send(new byte[1], 0, -5)).errorClass());
            assertEquals(ErrorClass.ROOT, assertThrows(LockstepException.class,
                    () -> w.bcast(MemorySegment.ofArray(new byte[1]), 1, Datatype.BYTE, 7)).errorClass());
            assertEquals(ErrorClass.NO_MEM, assertThrows(LockstepException.class, () -> w.allocate(1L << 30)).errorClass());
            assertEquals(ErrorClass.ARG, assertThrows(LockstepException.class,
                    () -> w.free(MemorySegment.ofArray(new byte[8]))).errorClass());
            w.send(new byte[0], Communicator.PROC_NULL, 0);
            assertEquals(Communicator.PROC_NULL, w.recv(new byte[0], Communicator.PROC_NULL, 0).source());
            w.barrier();
        });
    }
}
