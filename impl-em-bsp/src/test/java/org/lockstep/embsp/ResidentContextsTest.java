package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.lockstep.api.JobOptions;

/**
 * {@code lockstep.embsp.keepResident}: when every context fits in the budget, no context is ever
 * swapped and no message goes through the disks, and every collective still gives the reference
 * results; when they do not all fit, the simulator swaps as always.
 */
class ResidentContextsTest {
    private static final int VPS = 8;
    private static final int CORES = 2;
    private static final long MU = 256 << 10;
    private static final long BLOCK = 4096;
    private static final long CACHE = 8L << 20;

    private static JobOptions job(long memory) {
        return TestJobs.job(VPS, CORES, MU, BLOCK).with(EmBspOptions.KEEP_RESIDENT, "true")
                .with(EmBspOptions.MEMORY, Long.toString(memory)).with(EmBspOptions.BOUNDARY_CACHE, Long.toString(CACHE));
    }

    @Test
    void contextsThatAllFitStayInMemory() {
        RunReport report = Simulation.run(job(256L << 20), CollectiveChecks::run);
        assertTrue(report.options().keepResident(), report.keyValueLine());
        assertEquals(0, report.total().totalBytes(), "no swap and no delivery I/O: " + report.keyValueLine());
        assertEquals(VPS * MU + CORES * report.options().staging(), report.partitionBytes(), "memory of their own");
        CollectivesTest.assertWithinBounds(report);
    }

    @Test
    void contextsThatDoNotAllFitAreSwapped() {
        long staging = EmBspOptions.from(job(256L << 20)).staging();
        // room for the k partitions, not for all v contexts
        RunReport report = Simulation.run(job(CORES * (MU + staging) + CACHE + MU), CollectiveChecks::run);
        assertFalse(report.options().keepResident(), report.keyValueLine());
        assertTrue(report.total().swapBytes() > 0, report.keyValueLine());
        CollectivesTest.assertWithinBounds(report);
    }
}
