package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.function.Executable;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceSpec;

/** Paths, specs and assertions the mapped-device tests share. */
final class MappedTestSupport {
    static final Path SHM = Path.of("/dev/shm");
    private static final AtomicLong NAMES = new AtomicLong();

    private MappedTestSupport() {
    }

    /** A fresh path in /dev/shm that names this process and test, so that parallel builds never collide. */
    static Path shmPath(String label) {
        return SHM.resolve("lockstep-test-" + label + "-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet());
    }

    static DeviceSpec spec(Path path, long capacity, String... options) {
        DeviceSpec spec = DeviceSpec.of(MappedDeviceProvider.NAME, capacity).withPath(path.toString());
        for (int i = 0; i < options.length; i += 2) {
            spec = spec.withOption(options[i], options[i + 1]);
        }
        return spec;
    }

    static MappedDevice open(Path path, long capacity, String... options) {
        return (MappedDevice) new MappedDeviceProvider().open(spec(path, capacity, options));
    }

    /** Asserts that {@code action} throws a {@link DeviceException} of {@code errorClass} whose message has every fragment. */
    static DeviceException assertDeviceError(ErrorClass errorClass, Executable action, String... fragments) {
        DeviceException error = assertThrows(DeviceException.class, action);
        assertEquals(errorClass, error.errorClass(), error::getMessage);
        for (String fragment : fragments) {
            assertTrue(error.getMessage().contains(fragment), () -> "expected '" + fragment + "' in: " + error.getMessage());
        }
        return error;
    }

    /** The bytes the file system has allocated to {@code path} ({@code stat}'s blocks times block unit). */
    static long allocatedBytes(Path path) {
        try {
            Process stat = new ProcessBuilder("stat", "-c", "%b %B", path.toString()).redirectErrorStream(true).start();
            String[] output = new String(stat.getInputStream().readAllBytes()).trim().split(" ");
            assertEquals(0, stat.waitFor(), () -> "stat failed: " + String.join(" ", output));
            return Long.parseLong(output[0]) * Long.parseLong(output[1]);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run stat", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void deleteIfExists(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new IllegalStateException("cannot clean up " + path, e);
        }
    }
}
