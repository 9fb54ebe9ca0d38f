package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Delays have lower bounds only: on a shared machine an access may always take longer. */
class LatencyModelTest {
    @Test
    void everyAccessCostsAtLeastTheLatency() {
        int accesses = 10;
        long latencyNanos = TimeUnit.MILLISECONDS.toNanos(1);
        try (EmulatedDevice device = TestDevices.open(4096, "latency", "1ms")) {
            long start = System.nanoTime();
            for (int i = 0; i < accesses / 2; i++) {
                device.putLong(0, i);
                device.getLong(0);
            }
            long elapsed = System.nanoTime() - start;
            assertTrue(elapsed >= accesses * latencyNanos, "10 accesses at 1 ms took only " + elapsed + " ns");
        }
    }

    @Test
    void bulkTransfersCostAtLeastBytesOverBandwidth() {
        long bytes = 256 * 1024;
        try (EmulatedDevice device = TestDevices.open(bytes, "bandwidth", "16m"); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(bytes);
            long start = System.nanoTime();
            device.read(0, buffer, 0, bytes);
            long elapsed = System.nanoTime() - start;
            long expected = TimeUnit.SECONDS.toNanos(1) * bytes / (16L << 20);
            assertTrue(elapsed >= expected, "256 KiB at 16 MiB/s took only " + elapsed + " ns, expected >= " + expected);
        }
    }

    @Test
    void theDelayIsLatencyPlusBytesOverBandwidth() {
        LatencyModel model = LatencyModel.of(EmulatedDeviceOptions.parse(Map.of("latency", "50us", "bandwidth", "1g")));
        assertEquals(50_000, model.delayNanos(0));
        assertEquals(50_000 + 1_000_000_000L, model.delayNanos(1L << 30));
        assertEquals(0, LatencyModel.NONE.delayNanos(1L << 40));
    }

    @Test
    void persistCostsTheLatency() {
        try (EmulatedDevice device = TestDevices.open(4096, "latency", "2ms")) {
            long start = System.nanoTime();
            device.persist(0, 4096);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(2));
        }
    }
}
