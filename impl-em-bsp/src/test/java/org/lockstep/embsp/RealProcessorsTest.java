package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockstep.embsp.sim.CallRecord;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.api.TruncationException;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.RankProgram;

/**
 * P real processors, each its own machine (k partitions, its own disk files) and network agent,
 * talking through the mailbox transport — here as threads of one JVM, to test the algorithms
 * quickly; the launched-process tests of the tools module run the same across processes.
 */
class RealProcessorsTest {
    private static final long B = 4096;
    private static final long MU = 512 << 10;

    /** Runs {@code program} on v VPs over P processors; returns processor 0's report of the whole run. */
    static RunReport run(JobOptions job, int processors, RankProgram program) {
        JobOptions withV = job.with(EmBspOptions.VPS, Integer.toString(job.ranks())).with(EmBspOptions.FRAME, Long.toString(64 << 10));
        AtomicReferenceArray<RunReport> reports = new AtomicReferenceArray<>(processors);
        Lockstep.find("mailbox").orElseThrow().runInThreads(new JobOptions(processors, withV.properties()),
                world -> reports.set(world.rank(), Simulation.runProcessor(withV, world, program)));
        return reports.get(0);
    }

    @ParameterizedTest(name = "v={0} P={1} k={2} io={3} delivery={4}")
    @CsvSource({"8, 2, 2, sync, direct", "6, 3, 1, async, direct", "8, 4, 2, sync, direct", "12, 2, 3, mmap, direct",
            "8, 2, 2, sync, indirect", "6, 3, 1, async, indirect"})
    void everyCollectiveMatchesTheReference(int v, int processors, int k, String io, String delivery) {
        RunReport report = run(TestJobs.job(v, k, MU, B).with(EmBspOptions.IO, io).with(EmBspOptions.DELIVERY, delivery), processors,
                CollectiveChecks::run);
        assertEquals(processors, report.peakRssBytes().length, "one report per processor");
        assertTrue(report.networkBytes() > 0, "frames crossed: " + report.keyValueLine());
        CollectivesTest.assertWithinBounds(report);
    }

    /**
     * Bcasts from roots on both processors, one core each, so that VPs of the other processor
     * often wait for the root and give their partition up: each VP is swapped out and in at most
     * once per call, every call within its bounds, every byte delivered (the buffers straddle
     * blocks, so deliveries into waiting VPs go partly through the boundary-block cache). A VP that
     * waited for the root and then for the VPs reading its copy was swapped twice (kit rule EMBSP.02
     * failed about one run in three).
     */
    @ParameterizedTest(name = "io={0}")
    @ValueSource(strings = {"sync", "async"})
    void bcastSwapsEachVpAtMostOnce(String io) {
        int v = 16;
        int rounds = 24;
        long bytes = (96 << 10) + 37;
        RunReport report = run(TestJobs.job(v, 1, MU, B).with(EmBspOptions.IO, io), 2, world -> {
            MemorySegment kept = world.allocate(MU / 2);
            CollectiveChecks.fill(kept, 7 + world.rank());
            MemorySegment pad = world.allocate(333);
            MemorySegment message = world.allocate(bytes);
            for (int round = 0; round < rounds; round++) {
                int root = round * 5 % v;
                if (world.rank() == root) {
                    CollectiveChecks.fill(message, 500 + round);
                } else {
                    message.fill((byte) 0);
                }
                world.bcast(message, bytes, Datatype.BYTE, root);
                CollectiveChecks.expect(message, 0, bytes, 500 + round, "bcast round " + round + " from root " + root + " at rank "
                        + world.rank());
            }
            CollectiveChecks.expect(kept, 0, kept.byteSize(), 7 + world.rank(), "memory kept across the bcasts at rank " + world.rank());
            world.free(message);
            world.free(pad);
            world.free(kept);
        });
        assertEachCallSwappedOnce(report, "bcast", rounds);
    }

    /**
     * Allgathers on two processors of one core each, blocks straddling blocks of B: a VP whose
     * blocks from the other processor were not yet published when it arrived registers what it
     * misses and waits once, to the end (the fetcher delivers into its context); each VP is swapped
     * out and in at most once per call, every byte arrives. A VP that waited for the owners
     * elsewhere and then for everyone was swapped twice (the call's bound then allowed 4μ).
     */
    @ParameterizedTest(name = "io={0}")
    @ValueSource(strings = {"sync", "async"})
    void allgatherSwapsEachVpAtMostOnce(String io) {
        int v = 16;
        int rounds = 12;
        long block = 5000 + 37;
        RunReport report = run(TestJobs.job(v, 1, MU, B).with(EmBspOptions.IO, io), 2, world -> {
            MemorySegment kept = world.allocate(MU / 2);
            CollectiveChecks.fill(kept, 11 + world.rank());
            MemorySegment pad = world.allocate(333);
            MemorySegment mine = world.allocate(block);
            MemorySegment all = world.allocate(block * world.size());
            for (int round = 0; round < rounds; round++) {
                CollectiveChecks.fill(mine, 1000 * round + world.rank());
                all.fill((byte) 0);
                world.allgather(mine, block, Datatype.BYTE, all);
                for (int r = 0; r < world.size(); r++) {
                    CollectiveChecks.expect(all, r * block, block, 1000 * round + r, "allgather round " + round + ": rank " + r
                            + "'s block at rank " + world.rank());
                }
            }
            CollectiveChecks.expect(kept, 0, kept.byteSize(), 11 + world.rank(), "memory kept across the allgathers at rank "
                    + world.rank());
            world.free(all);
            world.free(mine);
            world.free(pad);
            world.free(kept);
        });
        assertEachCallSwappedOnce(report, "allgather", rounds);
    }

    /**
     * Allgathers on the two halves of a split, each half spanning both processors of one core
     * each, so that the halves' calls run at once: a VP that delivered its part waits for the
     * other processor to pull its block, and must give its partition up meanwhile if a VP of the
     * other half wants it. Holding it there deadlocked both processors (kit rule EMBSP.01 stopped
     * after 20 s, once in a CI run): VP 4 held processor 0's core waiting for processor 1's VP 14
     * to pull, VP 14 waited for that processor's core, held by VP 13 waiting for VP 5 here.
     */
    @ParameterizedTest(name = "io={0}")
    @ValueSource(strings = {"sync", "mmap"})
    void allgathersOfTwoHalvesAtOnceDoNotHoldEachOthersCores(String io) {
        int v = 8;
        int rounds = 200;
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> run(TestJobs.job(v, 1, MU, B).with(EmBspOptions.IO, io), 2,
                world -> {
                    Communicator half = world.split(world.rank() % 2, -world.rank());
                    MemorySegment mine = world.allocate(8);
                    MemorySegment all = world.allocate(8L * half.size());
                    for (int round = 0; round < rounds; round++) {
                        mine.set(ValueLayout.JAVA_LONG, 0, 1000L * round + world.rank());
                        half.allgather(mine, 1, Datatype.LONG, all);
                        for (int r = 0; r < half.size(); r++) {
                            long expected = 1000L * round + (world.rank() % 2 + 2L * (half.size() - 1 - r));
                            assertEquals(expected, all.getAtIndex(ValueLayout.JAVA_LONG, r), "round " + round + ": rank " + r
                                    + " of the half at world rank " + world.rank());
                        }
                    }
                    world.free(all);
                    world.free(mine);
                    half.close();
                }), "the halves' allgathers deadlocked");
    }

    /** {@code calls} records of {@code operation}, each within its bounds, its swaps within one out and in per VP. */
    private static void assertEachCallSwappedOnce(RunReport report, String operation, int calls) {
        List<CallRecord> records = report.calls().stream().filter(c -> c.operation().equals(operation)).toList();
        assertEquals(calls, records.size(), "one record per " + operation);
        for (CallRecord c : records) {
            assertTrue(c.counted().swapBytes() <= c.swapBoundBytes(), () -> "a VP swapped more than once: " + CollectivesTest.describe(c));
            assertTrue(c.withinBound(), () -> CollectivesTest.describe(c));
        }
    }

    /**
     * Point-to-point between VPs of different real processors: messages above the eager limit
     * (pulled by the receiver from the sender's context) and below it (streamed eagerly), at
     * offsets that straddle blocks; receives posted before the message is announced (the agent
     * delivers into the waiting VP's context); one sender's messages in order, tags selecting,
     * ANY_SOURCE, probe, a synchronous send, an empty message and truncation — all across.
     */
    @ParameterizedTest(name = "k={0} io={1} threads={2}")
    @CsvSource({"1, sync, virtual", "2, async, platform", "1, mmap, virtual", "1, sync, sequential"})
    void pointToPointAcrossProcessors(int k, String io, String threads) {
        int v = 8;
        RunReport report = run(TestJobs.job(v, k, MU, B).with(EmBspOptions.IO, io).with(EmBspOptions.THREADS, threads), 2, w -> {
            int r = w.rank();
            int n = w.size();
            int across = (r + n / 2) % n;
            boolean first = r < n / 2;
            MemorySegment pad = w.allocate(100 + 64L * r);
            MemorySegment big = w.allocate(70_000 + 1111L * r);
            MemorySegment small = w.allocate(300 + r);
            CollectiveChecks.fill(big, 100 + r);
            CollectiveChecks.fill(small, 200 + r);
            long bigIn = 70_000 + 1111L * across;
            long smallIn = 300 + across;
            MemorySegment inBig = w.allocate(bigIn);
            MemorySegment inSmall = w.allocate(smallIn);
            // 1. pairs across the processors, one side sending first
            if (first) {
                w.send(big, big.byteSize(), Datatype.BYTE, across, 3);
                w.send(small, small.byteSize(), Datatype.BYTE, across, 4);
            }
            Status sb = w.recv(inBig, bigIn, Datatype.BYTE, across, 3);
            Status ss = w.recv(inSmall, smallIn, Datatype.BYTE, Communicator.ANY_SOURCE, 4);
            if (!first) {
                w.send(big, big.byteSize(), Datatype.BYTE, across, 3);
                w.send(small, small.byteSize(), Datatype.BYTE, across, 4);
            }
            assertEquals(across, sb.source());
            assertEquals(bigIn, sb.byteCount());
            assertEquals(across, ss.source());
            CollectiveChecks.expect(inBig, 0, bigIn, 100 + across, "large message from " + across + " at " + r);
            CollectiveChecks.expect(inSmall, 0, smallIn, 200 + across, "small message from " + across + " at " + r);
            // 2. receives posted before the messages are announced: the agent delivers into the waiting VP
            inBig.fill((byte) 0);
            inSmall.fill((byte) 0);
            Request[] posted = new Request[0];
            if (!first) {
                posted = new Request[] {w.irecv(inBig, bigIn, Datatype.BYTE, across, 7), w.irecv(inSmall, smallIn, Datatype.BYTE, across, 8)};
            }
            w.barrier();
            if (first) {
                w.send(big, big.byteSize(), Datatype.BYTE, across, 7);
                w.send(small, small.byteSize(), Datatype.BYTE, across, 8);
            } else {
                for (Request p : posted) {
                    p.await();
                }
                CollectiveChecks.expect(inBig, 0, bigIn, 100 + across, "large message posted for at " + r);
                CollectiveChecks.expect(inSmall, 0, smallIn, 200 + across, "small message posted for at " + r);
            }
            // 3. one sender's messages in order, tags selecting, probe, ssend, an empty message, truncation
            if (r == 0) {
                PointToPointTest.sendAlternatingTags(w, n - 1);
                w.ssend(MemorySegment.ofArray(new long[] {-1}), 1, Datatype.LONG, n - 1, 5);
                w.send(new byte[0], n - 1, 6);
                w.send(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, n - 1, 9);
            } else if (r == n - 1) {
                PointToPointTest.receiveOddTagsFirst(w, 0);
                long[] got = new long[1];
                Status probed = w.probe(Communicator.ANY_SOURCE, 5);
                assertEquals(0, probed.source());
                assertEquals(Long.BYTES, probed.byteCount());
                w.recv(got, 0, 5);
                assertEquals(-1, got[0]);
                assertEquals(0, w.recv(new byte[4], 0, 6).byteCount(), "the empty message");
                byte[] three = new byte[3];
                TruncationException e = assertThrows(TruncationException.class, () -> w.recv(three, 0, 9));
                assertEquals(8, e.messageBytes());
                assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), List.of(three[0], three[1], three[2]));
            }
            w.barrier();
            w.free(inSmall);
            w.free(inBig);
            w.free(small);
            w.free(big);
            w.free(pad);
        });
        assertTrue(report.networkBytes() > 0, report.keyValueLine());
    }
}
