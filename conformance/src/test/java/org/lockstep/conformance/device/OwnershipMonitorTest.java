package org.lockstep.conformance.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;

class OwnershipMonitorTest {
    private static OwnershipMonitor monitor() {
        return new OwnershipMonitor(DeviceProviders.open(DeviceSpec.of("emulated", 1 << 16)));
    }

    private static void inThread(Runnable r) throws InterruptedException {
        Thread t = Thread.ofPlatform().start(r);
        t.join();
    }

    @Test
    void aSecondWriterBeforeThePublicationIsAViolation() throws InterruptedException {
        try (OwnershipMonitor m = monitor()) {
            inThread(() -> m.write(128, MemorySegment.ofArray(new byte[16]), 0, 16));
            inThread(() -> m.putLong(136, 1));
            assertEquals(1, m.violationCount(), m.violations().toString());
            assertTrue(m.violations().getFirst().contains("offset 128"), m.violations().toString());
        }
    }

    @Test
    void ownershipPassesWithAReleaseStore() throws InterruptedException {
        CountDownLatch published = new CountDownLatch(1);
        try (OwnershipMonitor m = monitor()) {
            inThread(() -> {
                m.write(256, MemorySegment.ofArray(new byte[64]), 0, 64);
                m.putLongRelease(512, 1);
                published.countDown();
            });
            inThread(() -> {
                m.getLongAcquire(512);
                m.write(256, MemorySegment.ofArray(new byte[64]), 0, 64);
            });
            assertEquals(0, m.violationCount(), m.violations().toString());
        }
    }

    @Test
    void theOpenersWritesDoNotCount() throws InterruptedException {
        try (OwnershipMonitor m = monitor()) {
            m.fill(0, 4096, (byte) 0);
            inThread(() -> m.putLong(8, 1));
            assertEquals(0, m.violationCount());
        }
    }
}
