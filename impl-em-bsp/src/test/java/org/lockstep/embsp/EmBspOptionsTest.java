package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

class EmBspOptionsTest {
    private static LockstepException refused(JobOptions job) {
        return assertThrows(LockstepException.class, () -> Simulation.run(job, w -> { }));
    }

    @Test
    void defaultsAreSensibleAndEveryParameterIsRead() {
        EmBspOptions o = EmBspOptions.from(JobOptions.ofRanks(16).with(EmBspOptions.CORES, "2"));
        assertEquals(16, o.vps());
        assertEquals(2, o.cores());
        assertEquals(EmBspOptions.IoMode.SYNC, o.io());
        assertEquals(EmBspOptions.ThreadMode.VIRTUAL, o.threads());
        assertEquals(0, o.contextSize() % o.blockSize());
        EmBspOptions all = EmBspOptions.from(JobOptions.ofRanks(8)
                .with(EmBspOptions.CORES, "4").with(EmBspOptions.CONTEXT_SIZE, "2m").with(EmBspOptions.BLOCK_SIZE, "8k")
                .with(EmBspOptions.DISKS, "/a,/b,/c").with(EmBspOptions.IO, "async").with(EmBspOptions.THREADS, "platform")
                .with(EmBspOptions.ALPHA, "3").with(EmBspOptions.MEMORY, "1g"));
        assertEquals(2 << 20, all.contextSize());
        assertEquals(8192, all.blockSize());
        assertEquals(3, all.diskCount());
        assertEquals(3, all.alpha());
        assertEquals(EmBspOptions.IoMode.ASYNC, all.io());
        assertTrue(!all.striped(), "k = 4 >= D = 3: contiguous contexts");
        assertTrue(EmBspOptions.from(JobOptions.ofRanks(8).with(EmBspOptions.CORES, "2").with(EmBspOptions.DISKS, "/a,/b,/c"))
                .striped(), "k = 2 < D = 3: striped");
    }

    @Test
    void stagingSlotsGrowWithTheContextWhereTheBudgetHasRoom() {
        JobOptions large = TestJobs.job(8, 2, 160L << 20, 4096).with(EmBspOptions.MEMORY, "512m");
        assertEquals(9L << 20, EmBspOptions.from(large).staging(), "(α+1) slots of 1 MiB for μ = 160 MiB");
        assertEquals(9L * (64 << 10), EmBspOptions.from(TestJobs.job(8, 2, 1L << 20, 4096)).staging(), "64 KiB slots for μ = 1 MiB");
        // k·μ + cache leave less than k·9 MiB: the small slots, and the job still fits
        JobOptions tight = large.with(EmBspOptions.MEMORY, Long.toString(2 * (160L << 20) + (8L << 20) + (10L << 20)));
        assertEquals(9L * (64 << 10), EmBspOptions.from(tight).staging());
        assertEquals(5L << 20, EmBspOptions.from(large.with(EmBspOptions.STAGING, "5m")).staging(), "as given");
        assertEquals(8, EmBspOptions.from(large).ioThreads());
    }

    @Test
    void impossibleConfigurationsAreRefusedWithTheValueNamed() {
        LockstepException fewer = refused(TestJobs.job(2, 4, 64 << 10, 4096));
        assertEquals(ErrorClass.ARG, fewer.errorClass());
        assertTrue(fewer.getMessage().contains("v = 2") && fewer.getMessage().contains("k = 4"), fewer.getMessage());

        LockstepException unaligned = refused(TestJobs.job(2, 1, 10_000, 4096));
        assertTrue(unaligned.getMessage().contains("10000"), unaligned.getMessage());

        LockstepException notPowerOfTwo = refused(TestJobs.job(2, 1, 12288, 6144));
        assertTrue(notPowerOfTwo.getMessage().contains("6144"), notPowerOfTwo.getMessage());

        LockstepException budget = refused(TestJobs.job(4, 2, 64 << 20, 4096).with(EmBspOptions.MEMORY, "100m"));
        assertEquals(ErrorClass.NO_MEM, budget.errorClass());
        assertTrue(budget.getMessage().contains("k·μ"), budget.getMessage());

        LockstepException mode = refused(TestJobs.job(2, 1, 64 << 10, 4096).with(EmBspOptions.IO, "tape"));
        assertTrue(mode.getMessage().contains("tape") && mode.getMessage().contains("mmap"), mode.getMessage());

        LockstepException vps = refused(TestJobs.job(2, 1, 64 << 10, 4096).with(EmBspOptions.VPS, "3"));
        assertTrue(vps.getMessage().contains("3"), vps.getMessage());
    }

    @Test
    void aBlockSmallerThanTheDeviceBlockIsRefused() throws IOException {
        long device = Files.getFileStore(TestJobs.diskDirectory()).getBlockSize();
        if (device <= 512) {
            return; // no smaller power of two to try on this file system
        }
        LockstepException e = refused(TestJobs.job(2, 1, 64 << 10, device / 2));
        assertEquals(ErrorClass.ARG, e.errorClass());
        assertTrue(e.getMessage().contains("device block"), e.getMessage());
    }

    @Test
    void aDiskWithoutRoomForVTimesMuIsRefused() {
        // a 1 TiB per VP request does not fit the test file system; nothing is created
        LockstepException e = refused(TestJobs.job(64, 1, 1L << 40, 4096).with(EmBspOptions.MEMORY, "2t"));
        assertEquals(ErrorClass.NO_MEM, e.errorClass());
        assertTrue(e.getMessage().contains("disk space"), e.getMessage());
    }

    @Test
    void anExistingFileIsNeverOverwrittenAndDiskFilesAreRemoved() throws IOException {
        Path existing = Files.createTempFile(TestJobs.diskDirectory(), "occupied", ".ctx");
        try {
            LockstepException e = refused(TestJobs.job(2, 1, 64 << 10, 4096).with(EmBspOptions.DISKS, existing.toString()));
            assertTrue(e.getMessage().contains("already exists"), e.getMessage());
        } finally {
            Files.delete(existing);
        }
        Path named = TestJobs.diskDirectory().resolve("named-disk-" + ProcessHandle.current().pid() + ".ctx");
        Simulation.run(TestJobs.job(2, 1, 64 << 10, 4096).with(EmBspOptions.DISKS, named.toString()), w -> w.barrier());
        assertTrue(Files.notExists(named), "the disk file is deleted after the run");
    }

    @Test
    void theProviderIsFoundByNameAndRunsAProgram() throws IOException {
        Path stats = Files.createTempFile(TestJobs.diskDirectory(), "stats", ".txt");
        Path bench = TestJobs.diskDirectory().resolve("bench-" + ProcessHandle.current().pid() + ".dat");
        try {
            JobOptions job = TestJobs.job(4, 2, 64 << 10, 4096).with(Lockstep.PROVIDER_PROPERTY, "embsp")
                    .with(EmBspOptions.STATS_OUT, stats.toString()).with(EmBspOptions.BENCH_OUT, bench.toString());
            Lockstep.run(job, w -> {
                w.allocate(10_000);
                w.barrier();
                w.barrier();
            });
            String line = Files.readString(stats).trim();
            assertTrue(line.matches("vps=4 cores=2 supersteps=3 seconds=[0-9.]+ swap_bytes=[0-9]+ delivery_bytes=[0-9]+ bound_bytes=[0-9]+ .*"),
                    line);
            var lines = Files.readAllLines(bench);
            assertTrue(lines.get(1).startsWith("# superstep seconds"), lines.toString());
            assertEquals(3, lines.stream().filter(l -> !l.startsWith("#")).count(), "one data line per superstep: " + lines);
            assertTrue(Files.readString(bench.resolveSibling(bench.getFileName() + ".gp")).contains("set terminal png"));
        } finally {
            Files.deleteIfExists(stats);
            Files.deleteIfExists(bench);
            Files.deleteIfExists(bench.resolveSibling(bench.getFileName() + ".gp"));
        }
    }
}
