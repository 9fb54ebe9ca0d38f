package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.ErrorClass;

/**
 * A file system without room is a clear error at open, naming the path, the size asked for and the
 * space available; it never fills the file system and never leaves a file behind.
 */
class PreallocationTest {
    private static final long TINY_FILE_SYSTEM_BYTES = 1 << 20;

    @TempDir
    Path scratch;

    @Test
    void aDeviceLargerThanTheFreeSpaceOfDevShmIsRefusedBeforeAnythingIsAllocated() throws IOException {
        long available = Files.getFileStore(MappedTestSupport.SHM).getUsableSpace();
        long asked = available + (1L << 30);
        Path path = MappedTestSupport.shmPath("toolarge");
        assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(path, asked),
                path.toString(), "needs " + asked + " bytes", "tmpfs", "bytes available");
        assertFalse(Files.exists(path), "nothing was created");
        assertNoTemporaryFiles(MappedTestSupport.SHM, path);
    }

    @Test
    void aFullTmpfsGivesTheClearErrorAndTheRoomThatIsLeftStillWorks() throws Exception {
        Path mountPoint = Files.createDirectory(scratch.resolve("tiny-tmpfs"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=" + TINY_FILE_SYSTEM_BYTES + ",mode=0700", "tmpfs",
                mountPoint.toString()), "mounting a small tmpfs needs root (CAP_SYS_ADMIN); covered by the /dev/shm test otherwise");
        try {
            Path first = mountPoint.resolve("first.dev");
            try (MappedDevice device = MappedTestSupport.open(first, TINY_FILE_SYSTEM_BYTES * 3 / 4)) {
                device.fill(0, device.capacity(), (byte) 1); // allocated, so this cannot SIGBUS
                Path second = mountPoint.resolve("second.dev");
                long available = Files.getFileStore(mountPoint).getUsableSpace();
                long asked = TINY_FILE_SYSTEM_BYTES / 2;
                assertDeviceError(ErrorClass.DEVICE, () -> MappedTestSupport.open(second, asked), second.toString(),
                        "needs " + asked + " bytes", "has only " + available + " bytes available", "ask for a smaller device");
                assertFalse(Files.exists(second));
                assertNoTemporaryFiles(mountPoint, second);
                try (MappedDevice fits = MappedTestSupport.open(second, available / 2)) {
                    fits.fill(0, fits.capacity(), (byte) 2);
                    assertEquals(0x0202020202020202L, fits.getLong(0));
                }
            }
        } finally {
            run("umount", mountPoint.toString());
        }
    }

    private static void assertNoTemporaryFiles(Path directory, Path device) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString()
                    .startsWith("." + device.getFileName() + ".creating")).toList());
        }
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return false;
        }
        return process.exitValue() == 0;
    }
}
