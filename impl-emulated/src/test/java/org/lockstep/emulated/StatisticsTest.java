package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Test;
import org.lockstep.spi.device.DeviceStatistics;

class StatisticsTest {
    @Test
    void everyKindOfAccessIsCountedWithItsBytes() {
        try (EmulatedDevice device = TestDevices.open(8192); Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(1000);
            assertEquals(DeviceStatistics.NONE, device.statistics());

            device.write(0, buffer, 0, 1000);
            device.fill(1000, 24, (byte) 1);
            device.putLong(2048, 1);
            device.putInt(2056, 1);
            device.putLongRelease(2064, 1);
            device.putLongVolatile(2072, 1);

            device.read(0, buffer, 0, 1000);
            device.getLong(2048);
            device.getInt(2056);
            device.getLongAcquire(2064);
            device.getLongVolatile(2072);

            device.compareAndSetLong(4096, 0, 1);
            device.compareAndSetLong(4096, 0, 1); // fails, still an atomic operation
            device.getAndAddLong(4096, 1);

            device.persist(0, 1024);
            device.persist(2048, 32);

            assertEquals(new DeviceStatistics(1000 + 8 + 4 + 8 + 8, 1000 + 24 + 8 + 4 + 8 + 8, 5, 6, 2, 1024 + 32, 3),
                    device.statistics());
        }
    }

    @Test
    void theRawSegmentBypassesTheCounters() {
        try (EmulatedDevice device = TestDevices.open(4096)) {
            device.asSegment().fill((byte) 5);
            assertEquals(DeviceStatistics.NONE, device.statistics());
        }
    }
}
