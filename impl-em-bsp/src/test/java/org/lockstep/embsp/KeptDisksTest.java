package org.lockstep.embsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;

/** lockstep.embsp.keepDisks: a named disk file is written through to its share, reused by the next run and never deleted. */
class KeptDisksTest {
    private static final long MU = 64 << 10;
    private static final int VPS = 4;

    private static JobOptions kept(Path file, boolean lazy) {
        return TestJobs.job(VPS, 1, MU, 4096).with(EmBspOptions.DISKS, file.toString()).with(EmBspOptions.KEEP_DISKS, "true")
                .with(EmBspOptions.LAZY_SWAP_IN, Boolean.toString(lazy)).with(EmBspOptions.IO, "async");
    }

    /** Each VP writes its pattern, is swapped out and in twice (k = 1), and finds its pattern again. */
    private static void keepsItsData(JobOptions job) {
        Simulation.run(job, w -> {
            MemorySegment mine = w.allocate(3 * 4096 + 24);
            for (long i = 0; i < mine.byteSize() / 8; i++) {
                mine.setAtIndex(ValueLayout.JAVA_LONG, i, w.rank() * 1_000_003L + i);
            }
            w.barrier();
            w.barrier();
            for (long i = 0; i < mine.byteSize() / 8; i++) {
                if (mine.getAtIndex(ValueLayout.JAVA_LONG, i) != w.rank() * 1_000_003L + i) {
                    throw new AssertionError("rank " + w.rank() + " lost long " + i);
                }
            }
        });
    }

    @ParameterizedTest(name = "lazy swap-in {0}")
    @ValueSource(booleans = {false, true})
    void aKeptDiskIsFilledReusedOverOldContentsAndLeftInPlace(boolean lazy) throws IOException {
        Path file = TestJobs.diskDirectory().resolve("kept-" + lazy + "-" + ProcessHandle.current().pid() + ".disk");
        try {
            // an earlier run's leftovers: a short file of non-zero bytes
            byte[] junk = new byte[8192];
            Arrays.fill(junk, (byte) 0x5A);
            Files.write(file, junk);
            keepsItsData(kept(file, lazy));
            assertTrue(Files.exists(file), "a kept disk stays after the run");
            assertEquals(VPS * MU, Files.size(file), "written through to v·μ");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                ByteBuffer tail = ByteBuffer.allocate(4096);
                channel.read(tail, VPS * MU - 4096);
                assertTrue(Arrays.equals(new byte[4096], tail.array()), "the part past the old end is zeros");
            }
            keepsItsData(kept(file, lazy));
            assertEquals(VPS * MU, Files.size(file), "the second run reuses the file as it is");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aKeptDiskInUseOrNamedAsADirectoryIsRefused() throws IOException {
        LockstepException directory = assertThrows(LockstepException.class,
                () -> keepsItsData(kept(TestJobs.diskDirectory(), false)));
        assertEquals(ErrorClass.ARG, directory.errorClass());
        assertTrue(directory.getMessage().contains("is a directory"), directory.getMessage());

        Path file = TestJobs.diskDirectory().resolve("kept-busy-" + ProcessHandle.current().pid() + ".disk");
        try (FileChannel held = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             FileLock lock = held.lock()) {
            LockstepException busy = assertThrows(LockstepException.class, () -> keepsItsData(kept(file, false)));
            assertEquals(ErrorClass.ARG, busy.errorClass());
            assertTrue(busy.getMessage().contains("in use by another job"), busy.getMessage());
            assertTrue(lock.isValid());
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
