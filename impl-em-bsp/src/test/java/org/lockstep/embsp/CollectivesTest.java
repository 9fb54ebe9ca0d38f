package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.JobOptions;
import org.lockstep.embsp.sim.CallRecord;

/**
 * Every collective, checked against a sequential reference, under each I/O driver and each thread
 * driver, on layouts that make messages straddle blocks and VPs wait swapped out.
 */
class CollectivesTest {
    private static final long B = 4096;
    private static final long MU = 512 << 10;

    static Stream<Arguments> drivers() {
        List<Arguments> all = new ArrayList<>();
        for (String io : new String[] {"sync", "async", "mmap"}) {
            for (String threads : new String[] {"platform", "virtual", "sequential"}) {
                all.add(Arguments.of(io, threads));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "io={0} threads={1}")
    @MethodSource("drivers")
    void everyCollectiveMatchesTheReference(String io, String threads) {
        JobOptions job = TestJobs.job(6, 2, MU, B).with(EmBspOptions.IO, io).with(EmBspOptions.THREADS, threads);
        RunReport report = Simulation.run(job, CollectiveChecks::run);
        assertEquals(io, report.ioDriver());
        assertEquals(threads, report.threadDriver());
        if (!io.equals("mmap")) {
            assertTrue(report.total().swapBytes() > 0, "VPs waited swapped out: " + report.keyValueLine());
            assertTrue(report.total().deliveryBytes() > 0, "some messages went to or came from disk: " + report.keyValueLine());
        } else {
            assertEquals(0, report.total().totalBytes(), "memory-mapped contexts need no explicit I/O");
        }
        assertWithinBounds(report);
    }

    /** Small Allgather(v) and Alltoall through direct delivery as well, not the message area. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void everyCollectiveMatchesTheReferenceWithoutTheMessageArea(String io) {
        JobOptions job = TestJobs.job(6, 2, MU, B).with(EmBspOptions.IO, io).with(EmBspOptions.STAGED_COLLECTIVE, "0");
        assertWithinBounds(Simulation.run(job, CollectiveChecks::run));
    }

    /** k < D: contexts striped block by block over three disks. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void stripedContextsOverThreeDisks(String io) {
        JobOptions job = TestJobs.withDisks(TestJobs.job(5, 1, MU, B), 3).with(EmBspOptions.IO, io);
        RunReport report = Simulation.run(job, CollectiveChecks::run);
        assertTrue(report.striped());
        assertWithinBounds(report);
    }

    /** k ≥ D: each context on one of two disks, VPs run in id order so rounds use both. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void contiguousContextsOverTwoDisks(String io) {
        JobOptions job = TestJobs.withDisks(TestJobs.job(7, 3, MU, B), 2).with(EmBspOptions.IO, io);
        RunReport report = Simulation.run(job, CollectiveChecks::run);
        assertTrue(!report.striped());
        assertWithinBounds(report);
    }

    /** No boundary-block cache at all: every unaligned fragment is read-modify-written, and the results are the same. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void withoutBoundaryCacheFragmentsAreReadModifyWritten(String io) {
        JobOptions job = TestJobs.job(6, 2, MU, B).with(EmBspOptions.IO, io).with(EmBspOptions.BOUNDARY_CACHE, "0")
                .with(EmBspOptions.ALPHA, "1");
        RunReport report = Simulation.run(job, CollectiveChecks::run);
        long misses = report.calls().stream().mapToLong(CallRecord::cacheMisses).sum();
        assertTrue(misses > 0, "fragments found no cache");
        assertWithinBounds(report);
    }

    /** A larger block than the messages' granularity, a single core, α = 2 and a tight staging buffer. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void largeBlocksOneCoreSmallStaging(String io) {
        JobOptions job = TestJobs.job(4, 1, 1 << 20, 16384).with(EmBspOptions.IO, io).with(EmBspOptions.ALPHA, "2")
                .with(EmBspOptions.STAGING, Long.toString(3 * 16384));
        RunReport report = Simulation.run(job, CollectiveChecks::run);
        assertWithinBounds(report);
    }

    /** PEMS1's indirect area as the Alltoallv baseline: the same results, within PEMS1's bound, and more delivery I/O than direct delivery. */
    @ParameterizedTest(name = "io={0}")
    @MethodSource("explicitIo")
    void indirectDeliveryGivesTheSameResultsWithMoreIo(String io) {
        JobOptions job = TestJobs.job(6, 2, MU, B).with(EmBspOptions.IO, io);
        RunReport direct = Simulation.run(job, CollectiveChecks::run);
        RunReport indirect = Simulation.run(job.with(EmBspOptions.DELIVERY, "indirect"), CollectiveChecks::run);
        assertWithinBounds(indirect);
        assertEquals("indirect", indirect.options().delivery().name().toLowerCase(java.util.Locale.ROOT));
        long directAlltoall = alltoallDelivery(direct);
        long indirectAlltoall = alltoallDelivery(indirect);
        assertTrue(indirectAlltoall > directAlltoall, "indirect " + indirectAlltoall + " vs direct " + directAlltoall + " bytes");
    }

    private static long alltoallDelivery(RunReport report) {
        return report.calls().stream().filter(c -> c.operation().startsWith("alltoall")).mapToLong(c -> c.counted().deliveryBytes()).sum();
    }

    static Stream<String> explicitIo() {
        return Stream.of("sync", "async");
    }

    static void assertWithinBounds(RunReport report) {
        List<CallRecord> over = report.calls().stream().filter(c -> !c.withinBound()).toList();
        assertTrue(over.isEmpty(), () -> "calls over their I/O bound:\n" + over.stream().map(CollectivesTest::describe)
                .collect(Collectors.joining("\n")));
        assertTrue(report.calls().size() > 20, "every collective was recorded: " + report.calls().size());
    }

    static String describe(CallRecord c) {
        return c.operation() + " #" + c.sequence() + " n=" + c.participants() + " omega=" + c.omega() + " swap="
                + c.counted().swapBytes() + "/" + c.swapBoundBytes() + " delivery=" + c.counted().deliveryBytes() + "/"
                + c.deliveryBoundBytes() + "+" + c.missAllowance() + " thesis=" + c.thesisBoundBytes();
    }
}
