package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The single-writer hand-off the mailbox protocol builds on: a payload written with plain writes
 * and published by a release store is seen whole by a reader that acquires the published value.
 */
class OrderingTest {
    private static final long FLAG = 0;
    private static final long ACK = 64;
    private static final long PAYLOAD = 128;
    private static final int PAYLOAD_BYTES = 1024;
    private static final int ROUNDS = 2_000;
    private static final long SPIN_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final EmulatedDevice device = TestDevices.open(4096);

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void releaseStorePublishesEarlierPlainWritesToAnAcquiringReader() throws Exception {
        exchange(false);
    }

    @Test
    void volatileStorePublishesEarlierPlainWritesToAVolatileReader() throws Exception {
        exchange(true);
    }

    private void exchange(boolean volatileWords) throws Exception {
        // own threads: the common pool may have a single thread on a 2-core machine
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            exchange(volatileWords, threads);
        }
    }

    private void exchange(boolean volatileWords, ExecutorService threads) throws Exception {
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment payload = arena.allocate(PAYLOAD_BYTES);
                for (long round = 1; round <= ROUNDS; round++) {
                    payload.fill((byte) round);
                    payload.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, round);
                    device.write(PAYLOAD, payload, 0, PAYLOAD_BYTES);
                    publish(FLAG, round, volatileWords);
                    awaitValue(ACK, round, volatileWords);
                }
            }
        }, threads);
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment received = arena.allocate(PAYLOAD_BYTES);
                for (long round = 1; round <= ROUNDS; round++) {
                    awaitValue(FLAG, round, volatileWords);
                    device.read(PAYLOAD, received, 0, PAYLOAD_BYTES);
                    assertEquals(round, received.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), "payload header of round " + round);
                    assertEquals((byte) round, received.get(ValueLayout.JAVA_BYTE, PAYLOAD_BYTES - 1), "payload tail of round " + round);
                    publish(ACK, round, volatileWords);
                }
            }
        }, threads);
        CompletableFuture.allOf(writer, reader).get(60, TimeUnit.SECONDS);
    }

    private void publish(long word, long value, boolean volatileWords) {
        if (volatileWords) {
            device.putLongVolatile(word, value);
        } else {
            device.putLongRelease(word, value);
        }
    }

    /** Spins until the word holds {@code expected} (a spin, not a sleep: this is the protocol under test). */
    private void awaitValue(long word, long expected, boolean volatileWords) {
        long start = System.nanoTime();
        while ((volatileWords ? device.getLongVolatile(word) : device.getLongAcquire(word)) != expected) {
            if (System.nanoTime() - start > SPIN_DEADLINE_NANOS) {
                fail("word at " + word + " never reached the awaited value");
            }
            Thread.onSpinWait();
        }
    }
}
