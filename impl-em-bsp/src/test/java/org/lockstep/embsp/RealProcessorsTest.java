package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReferenceArray;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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
}
