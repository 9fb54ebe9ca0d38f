package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AtomicsTest {
    private static final int THREADS = 2;
    private static final int INCREMENTS = 100_000;
    private static final long COUNTER = 64;

    private final EmulatedDevice device = TestDevices.open(4096);

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void getAndAddFromTwoThreadsLosesNoIncrement() throws Exception {
        runConcurrently(() -> {
            for (int i = 0; i < INCREMENTS; i++) {
                device.getAndAddLong(COUNTER, 1);
            }
        });
        assertEquals((long) THREADS * INCREMENTS, device.getLongVolatile(COUNTER));
        assertEquals((long) THREADS * INCREMENTS, device.statistics().atomicOperations());
    }

    @Test
    void compareAndSetIncrementsFromTwoThreadsLoseNoIncrement() throws Exception {
        runConcurrently(() -> {
            for (int i = 0; i < INCREMENTS; i++) {
                long seen;
                do {
                    seen = device.getLongVolatile(COUNTER);
                } while (!device.compareAndSetLong(COUNTER, seen, seen + 1));
            }
        });
        assertEquals((long) THREADS * INCREMENTS, device.getLongVolatile(COUNTER));
        assertTrue(device.statistics().atomicOperations() >= (long) THREADS * INCREMENTS);
    }

    @Test
    void aFailedCompareAndSetChangesNothing() {
        device.putLongVolatile(COUNTER, 5);
        device.persist(0, device.capacity());
        assertFalse(device.compareAndSetLong(COUNTER, 4, 9));
        assertEquals(5, device.getLongVolatile(COUNTER));
        assertTrue(device.isPersisted(COUNTER, Long.BYTES), "a failed compare-and-set wrote nothing");
        assertTrue(device.compareAndSetLong(COUNTER, 5, 9));
        assertEquals(9, device.getLongVolatile(COUNTER));
        assertEquals(9, device.getAndAddLong(COUNTER, -9));
        assertEquals(0, device.getLongVolatile(COUNTER));
    }

    /** Runs {@code work} on {@link #THREADS} threads that start together, and waits for all of them. */
    private static void runConcurrently(Runnable work) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    work.run();
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
    }
}
