package org.lockstep.emulated;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.emulated.TestDevices.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;

class CloseTest {
    private static final long CAPACITY = 1 << 20;

    @Test
    void everyAccessAfterCloseIsADeviceError() {
        EmulatedDevice device = TestDevices.open(4096);
        MemorySegment buffer = Arena.ofAuto().allocate(64);
        device.close();
        assertTrue(device.isClosed());
        List<Executable> accesses = List.of(
                () -> device.read(0, buffer, 0, 8), () -> device.write(0, buffer, 0, 8), () -> device.fill(0, 8, (byte) 0),
                () -> device.getLong(0), () -> device.putLong(0, 1), () -> device.getInt(0), () -> device.putInt(0, 1),
                () -> device.getLongAcquire(0), () -> device.putLongRelease(0, 1),
                () -> device.getLongVolatile(0), () -> device.putLongVolatile(0, 1),
                () -> device.compareAndSetLong(0, 0, 1), () -> device.getAndAddLong(0, 1),
                () -> device.persist(0, 8), device::asSegment,
                device::unpersistedBytes, () -> device.isPersisted(0, 8), device::crash);
        for (Executable access : accesses) {
            assertDeviceError(ErrorClass.DEVICE, access, "is closed");
        }
        device.close(); // a second close does nothing
        assertEquals(0, device.statistics().reads(), "statistics stay readable after close");
    }

    @Test
    void closingWhileOtherThreadsAccessTheDeviceFailsThemCleanly() throws Exception {
        List<Consumer<EmulatedDevice>> workloads = List.of(
                device -> device.getAndAddLong(0, 1),
                device -> device.putLongRelease(64, device.getLongAcquire(64) + 1),
                device -> {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment buffer = arena.allocate(CAPACITY);
                        device.read(0, buffer, 0, CAPACITY);
                        device.write(0, buffer, 0, CAPACITY);
                    }
                },
                device -> device.persist(0, CAPACITY));
        try (ExecutorService threads = Executors.newFixedThreadPool(workloads.size())) {
            for (int round = 0; round < 10; round++) {
                EmulatedDevice device = TestDevices.open(CAPACITY);
                AtomicLong operations = new AtomicLong();
                List<CompletableFuture<Void>> workers = new ArrayList<>();
                for (Consumer<EmulatedDevice> workload : workloads) {
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
                    ExecutionException failure = assertThrows(ExecutionException.class,
                            () -> worker.get(30, TimeUnit.SECONDS));
                    DeviceException error = assertInstanceOf(DeviceException.class, failure.getCause(),
                            () -> "round: a worker failed with something else than a DeviceException: " + failure.getCause());
                    assertEquals(ErrorClass.DEVICE, error.errorClass());
                    assertTrue(error.getMessage().contains("is closed"), error.getMessage());
                }
            }
        }
    }
}
