package org.lockstep.pcie.mapped;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;

/** After close every access is a device error, and closing under concurrent access never touches unmapped memory. */
class MappedCloseTest {
    private static final long CAPACITY = 1 << 20;

    @TempDir
    Path disk;

    @Test
    void everyAccessAfterCloseIsADeviceError() {
        MappedDevice device = MappedTestSupport.open(MappedTestSupport.shmPath("closed"), 4096,
                MappedDeviceOptions.DELETE_ON_CLOSE, "true");
        MemorySegment buffer = Arena.ofAuto().allocate(64);
        MemorySegment raw = device.asSegment();
        device.close();
        assertTrue(device.isClosed());
        List<Executable> accesses = List.of(
                () -> device.read(0, buffer, 0, 8), () -> device.write(0, buffer, 0, 8), () -> device.fill(0, 8, (byte) 0),
                () -> device.getLong(0), () -> device.putLong(0, 1), () -> device.getInt(0), () -> device.putInt(0, 1),
                () -> device.getLongAcquire(0), () -> device.putLongRelease(0, 1),
                () -> device.getLongVolatile(0), () -> device.putLongVolatile(0, 1),
                () -> device.compareAndSetLong(0, 0, 1), () -> device.getAndAddLong(0, 1),
                () -> device.persist(0, 8), device::asSegment);
        for (Executable access : accesses) {
            assertDeviceError(ErrorClass.DEVICE, access, "is closed");
        }
        assertThrows(IllegalStateException.class, () -> raw.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0),
                "the raw segment handed out before close is dead, not dangling");
        device.close();
        assertEquals(0, device.statistics().reads(), "statistics stay readable after close");
    }

    @Test
    void closingWhileOtherThreadsAccessTheDeviceFailsThemCleanly() throws Exception {
        // a disk file, so that persist is a real msync that holds the mapping while close runs
        List<Consumer<MappedDevice>> workloads = List.of(
                device -> device.getAndAddLong(0, 1),
                device -> device.putLongRelease(64, device.getLongAcquire(64) + 1),
                device -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment buffer = arena.allocate(CAPACITY);
                        device.read(0, buffer, 0, CAPACITY);
                        device.write(0, buffer, 0, CAPACITY);
                    }
                },
                device -> {
                    device.putLong(8192, device.getLong(8192) + 1);
                    device.persist(0, 3 * 4096);
                });
        try (ExecutorService threads = Executors.newFixedThreadPool(workloads.size())) {
            for (int round = 0; round < 5; round++) {
                MappedDevice device = MappedTestSupport.open(disk.resolve("closing-" + round), CAPACITY,
                        MappedDeviceOptions.DELETE_ON_CLOSE, "true");
                AtomicLong operations = new AtomicLong();
                List<CompletableFuture<Void>> workers = new ArrayList<>();
                for (Consumer<MappedDevice> workload : workloads) {
                    workers.add(CompletableFuture.runAsync(() -> {
                        while (true) {
                            workload.accept(device);
                            operations.incrementAndGet();
                        }
                    }, threads));
                }
                long before = operations.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> operations.get() > before + workloads.size() * 5L);
                device.close();
                for (CompletableFuture<Void> worker : workers) {
                    ExecutionException failure = assertThrows(ExecutionException.class, () -> worker.get(30, TimeUnit.SECONDS));
                    DeviceException error = assertInstanceOf(DeviceException.class, failure.getCause(),
                            () -> "a worker failed with something else than a DeviceException: " + failure.getCause());
                    assertEquals(ErrorClass.DEVICE, error.errorClass());
                    assertTrue(error.getMessage().contains("is closed"), error.getMessage());
                }
            }
        }
    }
}
