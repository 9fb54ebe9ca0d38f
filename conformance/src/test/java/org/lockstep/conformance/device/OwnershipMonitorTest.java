package org.lockstep.conformance.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.lockstep.spi.device.ExternalMemory;

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

    private static final long CLAIM_WORD = 1024;

    /** A compare-and-set that is a read and a later write, with both parties held between the two (the race made certain). */
    private static final class ReadThenWrite extends ForwardingMemory {
        private final CyclicBarrier bothRead = new CyclicBarrier(2);

        ReadThenWrite(ExternalMemory device) {
            super(device);
        }

        @Override
        public boolean compareAndSetLong(long offset, long expected, long value) {
            boolean matches = getLongVolatile(offset) == expected;
            try {
                bothRead.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new IllegalStateException("the other claimer did not come", e);
            }
            if (matches) {
                putLongVolatile(offset, value);
            }
            return matches;
        }
    }

    /** An atomic compare-and-set whose first call stays open until it is let go (so later calls overlap it). */
    private static final class HeldCompareAndSet extends ForwardingMemory {
        final CountDownLatch firstDone = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);

        HeldCompareAndSet(ExternalMemory device) {
            super(device);
        }

        @Override
        public boolean compareAndSetLong(long offset, long expected, long value) {
            boolean swapped = super.compareAndSetLong(offset, expected, value);
            if (first.getAndSet(false)) {
                firstDone.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return swapped;
        }
    }

    @Test
    void twoOwnersOfOneCompareAndSetClaimAreAViolation() throws InterruptedException {
        try (OwnershipMonitor m = new OwnershipMonitor(new ReadThenWrite(DeviceProviders.open(DeviceSpec.of("emulated", 1 << 16))))) {
            boolean[] claimed = new boolean[2];
            Thread a = Thread.ofPlatform().start(() -> claimed[0] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            Thread b = Thread.ofPlatform().start(() -> claimed[1] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            a.join();
            b.join();
            assertTrue(claimed[0] && claimed[1], "both took the claim on the broken device");
            assertEquals(1, m.violationCount(), m.violations().toString());
            assertTrue(m.violations().getFirst().contains("offset " + CLAIM_WORD), m.violations().toString());
        }
    }

    @Test
    void claimsOneAfterTheOtherAreNoViolationEvenWhenTheValueComesBack() throws InterruptedException {
        try (OwnershipMonitor m = monitor()) {
            boolean[] claimed = new boolean[2];
            inThread(() -> claimed[0] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            inThread(() -> m.putLongVolatile(CLAIM_WORD, 0));
            inThread(() -> claimed[1] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            assertTrue(claimed[0] && claimed[1], "both claims succeeded");
            assertEquals(0, m.violationCount(), m.violations().toString());
        }
    }

    @Test
    void overlappingClaimsWithAWriteThatRestoredTheValueAreNoViolation() throws InterruptedException {
        HeldCompareAndSet held = new HeldCompareAndSet(DeviceProviders.open(DeviceSpec.of("emulated", 1 << 16)));
        try (OwnershipMonitor m = new OwnershipMonitor(held)) {
            boolean[] claimed = new boolean[2];
            Thread a = Thread.ofPlatform().start(() -> claimed[0] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            assertTrue(held.firstDone.await(10, TimeUnit.SECONDS), "the first claim reached the device");
            inThread(() -> m.putLongVolatile(CLAIM_WORD, 0));
            inThread(() -> claimed[1] = m.compareAndSetLong(CLAIM_WORD, 0, 1));
            held.release.countDown();
            a.join();
            assertTrue(claimed[0] && claimed[1], "both claims succeeded, one after the value came back");
            assertEquals(0, m.violationCount(), m.violations().toString());
        }
    }
}
