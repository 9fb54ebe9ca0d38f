package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.emulated.TestDevices.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;

class PersistenceTrackingTest {
    private static final int LINE = EmulatedDevice.PERSISTENCE_LINE_BYTES;
    private static final long CAPACITY = 64 * LINE;

    private final EmulatedDevice device = TestDevices.open(CAPACITY);

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void aFreshDeviceIsFullyPersisted() {
        assertEquals(0, device.unpersistedBytes());
        assertTrue(device.isPersisted(0, CAPACITY));
        assertEquals(0, device.crash());
    }

    @Test
    void aWriteMakesItsLineUnpersistedAndOnlyThatLine() {
        device.putLong(LINE + 8, 1);
        assertEquals(LINE, device.unpersistedBytes());
        assertFalse(device.isPersisted(LINE + 8, 8));
        assertFalse(device.isPersisted(LINE, 1), "the whole line is unpersisted");
        assertFalse(device.isPersisted(0, CAPACITY));
        assertTrue(device.isPersisted(0, LINE));
        assertTrue(device.isPersisted(2 * LINE, CAPACITY - 2 * LINE));
    }

    @Test
    void aWriteAcrossALineBoundaryDirtiesBothLines() {
        device.putLong(LINE - 4, -1);
        assertEquals(2L * LINE, device.unpersistedBytes());
        device.persist(LINE - 1, 1);
        assertEquals(LINE, device.unpersistedBytes(), "persisting one byte persists its whole line");
        assertTrue(device.isPersisted(0, LINE));
        assertFalse(device.isPersisted(LINE, 1));
        device.persist(LINE, 1);
        assertEquals(0, device.unpersistedBytes());
    }

    @Test
    void persistOfARangeCleansExactlyTheLinesItTouches() {
        device.fill(0, 10 * LINE, (byte) 7);
        assertEquals(10L * LINE, device.unpersistedBytes());
        device.persist(2 * LINE + 10, 3 * LINE); // touches lines 2..5
        assertEquals(6L * LINE, device.unpersistedBytes());
        assertTrue(device.isPersisted(2 * LINE, 4 * LINE));
        assertFalse(device.isPersisted(LINE, LINE));
        assertFalse(device.isPersisted(6 * LINE, LINE));
        device.persist(0, 0);
        assertEquals(6L * LINE, device.unpersistedBytes(), "an empty persist persists nothing");
    }

    @Test
    void crashLosesExactlyTheUnpersistedLines() {
        device.putLong(0, 11);
        device.putLong(2 * LINE, 22);
        device.persist(0, 8);
        assertEquals(LINE, device.crash());
        assertEquals(11, device.getLong(0), "persisted line survives");
        assertEquals(0, device.getLong(2 * LINE), "unpersisted line reverts to its durable (initial) content");
        assertEquals(0, device.unpersistedBytes());
    }

    @Test
    void crashRevertsToTheLastPersistedContentNotToZero() {
        device.putLongVolatile(LINE, 1);
        device.persist(LINE, 8);
        device.putLongVolatile(LINE, 2);
        device.putLongVolatile(LINE + 8, 3);
        device.crash();
        assertEquals(1, device.getLongVolatile(LINE));
        assertEquals(0, device.getLongVolatile(LINE + 8));
        device.putLongVolatile(LINE, 4);
        device.persist(0, CAPACITY);
        device.crash();
        assertEquals(4, device.getLongVolatile(LINE));
    }

    static Stream<Arguments> mutations() {
        MemorySegment source = Arena.ofAuto().allocate(16);
        return Stream.of(
                Arguments.of("write", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.write(o, source, 0, 16)),
                Arguments.of("fill", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.fill(o, 3, (byte) 1)),
                Arguments.of("putLong", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.putLong(o, 1)),
                Arguments.of("putInt", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.putInt(o, 1)),
                Arguments.of("putLongRelease", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.putLongRelease(o, 1)),
                Arguments.of("putLongVolatile", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.putLongVolatile(o, 1)),
                Arguments.of("compareAndSetLong", (BiConsumer<EmulatedDevice, Long>) (d, o) -> assertTrue(d.compareAndSetLong(o, 0, 1))),
                Arguments.of("getAndAddLong", (BiConsumer<EmulatedDevice, Long>) (d, o) -> d.getAndAddLong(o, 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutations")
    void everyMutationIsTrackedAndLostByACrash(String operation, BiConsumer<EmulatedDevice, Long> mutation) {
        long offset = 5 * LINE;
        mutation.accept(device, offset);
        assertFalse(device.isPersisted(offset, 1), operation + " must mark its line");
        assertEquals(LINE, device.unpersistedBytes());
        device.crash();
        assertEquals(0, device.getLong(offset), operation + " must be lost by a crash");
        mutation.accept(device, offset);
        device.persist(offset, 1);
        long persisted = device.getLong(offset);
        device.crash();
        assertEquals(persisted, device.getLong(offset), operation + " must survive a crash once persisted");
    }

    @Test
    void readsDoNotDirtyAnything() {
        MemorySegment target = Arena.ofAuto().allocate(LINE);
        device.read(0, target, 0, LINE);
        device.getLong(8);
        device.getInt(16);
        device.getLongAcquire(24);
        device.getLongVolatile(32);
        assertEquals(0, device.unpersistedBytes());
    }

    @Test
    void theShortLastLineIsCountedByItsRealLength() {
        try (EmulatedDevice odd = TestDevices.open(LINE + 10)) {
            odd.fill(LINE, 10, (byte) 3);
            assertEquals(10, odd.unpersistedBytes());
            odd.fill(0, LINE + 10, (byte) 4);
            assertEquals(LINE + 10, odd.unpersistedBytes());
            odd.persist(LINE + 9, 1);
            assertEquals(LINE, odd.unpersistedBytes());
            assertEquals(LINE, odd.crash());
            MemorySegment tail = Arena.ofAuto().allocate(10);
            odd.read(LINE, tail, 0, 10);
            assertEquals(4, tail.get(ValueLayout.JAVA_BYTE, 9));
            assertEquals(0, odd.getInt(0), "line 0 was never persisted");
        }
    }

    @Test
    void writesThroughTheRawSegmentBypassTracking() {
        device.asSegment().set(ValueLayout.JAVA_LONG, 0, 99);
        assertEquals(0, device.unpersistedBytes());
        assertEquals(0, device.statistics().writes());
        assertEquals(99, device.getLong(0));
    }

    /**
     * A line that is clean after writes raced with persists of it must have its latest content in
     * the durable image: a crash then keeps it. (Catches a tracker that marks lines before storing,
     * or copies before clearing.)
     */
    @Test
    void writesRacingWithPersistsNeverLeaveACleanLineWithStaleDurableContent() throws Exception {
        long word = 3 * LINE;
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 50; round++) {
                AtomicBoolean writing = new AtomicBoolean(true);
                long base = round * 1_000_000L;
                Future<?> writer = threads.submit(() -> {
                    for (long value = 1; value <= 2_000; value++) {
                        device.putLongRelease(word, base + value);
                    }
                    writing.set(false);
                });
                Future<?> persister = threads.submit(() -> {
                    while (writing.get()) {
                        device.persist(word, Long.BYTES);
                    }
                });
                writer.get(30, TimeUnit.SECONDS);
                persister.get(30, TimeUnit.SECONDS);
                long last = device.getLongAcquire(word);
                assertEquals(base + 2_000, last);
                boolean clean = device.isPersisted(word, Long.BYTES);
                device.crash();
                if (clean) {
                    assertEquals(last, device.getLongAcquire(word), "a clean line lost its last write in round " + round);
                }
                device.putLongRelease(word, last);
                device.persist(word, Long.BYTES);
            }
        }
    }

    @Test
    void withPersistenceOffNothingIsTrackedAndTheDeviceSaysSo() {
        try (EmulatedDevice untracked = TestDevices.open(CAPACITY, "persistence", "off")) {
            assertFalse(untracked.has(DeviceCapability.PERSISTENT));
            assertFalse(untracked.has(DeviceCapability.CRASH_INJECTION));
            untracked.putLong(0, 1);
            untracked.persist(0, 8);
            assertEquals(1, untracked.statistics().persists());
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, untracked::unpersistedBytes, "persistence=off");
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> untracked.isPersisted(0, 8), "persistence=off");
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, untracked::crash, "persistence=off");
            assertEquals(1, untracked.getLong(0));
        }
    }
}
