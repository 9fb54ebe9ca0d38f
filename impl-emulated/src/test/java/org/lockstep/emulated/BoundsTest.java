package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lockstep.emulated.TestDevices.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceStatistics;

class BoundsTest {
    private static final long CAPACITY = 4096;

    private final EmulatedDevice device = TestDevices.open(CAPACITY);
    private final MemorySegment buffer = Arena.ofAuto().allocate(64);

    @AfterEach
    void close() {
        device.close();
    }

    /** An access of the device that takes its offset as the argument. */
    interface Access {
        void at(EmulatedDevice device, MemorySegment buffer, long offset);
    }

    static Stream<Arguments> accesses() {
        Stream<Arguments> kinds = Stream.of(
                Arguments.of("read", (Access) (d, b, o) -> d.read(o, b, 0, 16)),
                Arguments.of("write", (Access) (d, b, o) -> d.write(o, b, 0, 16)),
                Arguments.of("fill", (Access) (d, b, o) -> d.fill(o, 16, (byte) 1)),
                Arguments.of("getLong", (Access) (d, b, o) -> d.getLong(o)),
                Arguments.of("putLong", (Access) (d, b, o) -> d.putLong(o, 1)),
                Arguments.of("getInt", (Access) (d, b, o) -> d.getInt(o)),
                Arguments.of("putInt", (Access) (d, b, o) -> d.putInt(o, 1)),
                Arguments.of("getLongAcquire", (Access) (d, b, o) -> d.getLongAcquire(o)),
                Arguments.of("putLongRelease", (Access) (d, b, o) -> d.putLongRelease(o, 1)),
                Arguments.of("getLongVolatile", (Access) (d, b, o) -> d.getLongVolatile(o)),
                Arguments.of("putLongVolatile", (Access) (d, b, o) -> d.putLongVolatile(o, 1)),
                Arguments.of("compareAndSetLong", (Access) (d, b, o) -> d.compareAndSetLong(o, 0, 1)),
                Arguments.of("getAndAddLong", (Access) (d, b, o) -> d.getAndAddLong(o, 1)),
                Arguments.of("persist", (Access) (d, b, o) -> d.persist(o, 16)),
                Arguments.of("isPersisted", (Access) (d, b, o) -> d.isPersisted(o, 16)));
        // every offset is outside for every access (the widest access is 16 bytes)
        long[] outside = {-1, -8, CAPACITY, CAPACITY - 2, CAPACITY + 8, Long.MAX_VALUE, Long.MAX_VALUE - 7, Long.MIN_VALUE};
        return kinds.flatMap(kind -> LongStream.of(outside).mapToObj(offset -> Arguments.of(kind.get()[0], kind.get()[1], offset)));
    }

    @ParameterizedTest(name = "{0} at {2}")
    @MethodSource("accesses")
    void accessOutsideTheDeviceIsRefusedWithOffsetAndCapacity(String operation, Access access, long offset) {
        assertDeviceError(ErrorClass.DEVICE, () -> access.at(device, buffer, offset),
                operation, "offset " + offset, "[0, " + CAPACITY + ")");
        DeviceStatistics statistics = device.statistics();
        assertEquals(0, statistics.reads() + statistics.writes() + statistics.atomicOperations() + statistics.persists(),
                "a refused access must not be counted");
        assertEquals(0, device.unpersistedBytes(), "a refused access must not write");
    }

    @Test
    void lengthsThatOverflowTheOffsetAreRefused() {
        assertDeviceError(ErrorClass.DEVICE, () -> device.read(8, buffer, 0, Long.MAX_VALUE), "offset 8", String.valueOf(Long.MAX_VALUE));
        assertDeviceError(ErrorClass.DEVICE, () -> device.write(Long.MAX_VALUE, buffer, 0, 2), "offset " + Long.MAX_VALUE);
        assertDeviceError(ErrorClass.DEVICE, () -> device.fill(1, Long.MAX_VALUE, (byte) 0), "offset 1");
        assertDeviceError(ErrorClass.DEVICE, () -> device.fill(0, -1, (byte) 0), "-1 bytes");
        assertDeviceError(ErrorClass.DEVICE, () -> device.persist(CAPACITY - 1, Long.MAX_VALUE), "persist");
    }

    @Test
    void theLastBytesOfTheDeviceAreReachable() {
        device.putLongVolatile(CAPACITY - Long.BYTES, 42);
        assertEquals(42, device.getLongAcquire(CAPACITY - Long.BYTES));
        device.putInt(CAPACITY - Integer.BYTES, 7);
        assertEquals(7, device.getInt(CAPACITY - Integer.BYTES));
        device.fill(CAPACITY - 1, 1, (byte) 9);
        device.read(CAPACITY - 1, buffer, 0, 1);
        assertEquals(9, buffer.get(ValueLayout.JAVA_BYTE, 0));
        device.fill(CAPACITY, 0, (byte) 1); // empty access at the end is inside
    }

    @Test
    void misalignedOrderedAndAtomicWordsAreRefused() {
        assertDeviceError(ErrorClass.ARG, () -> device.getLongAcquire(3), "getLongAcquire", "offset 3", "aligned");
        assertDeviceError(ErrorClass.ARG, () -> device.putLongRelease(4, 1), "offset 4");
        assertDeviceError(ErrorClass.ARG, () -> device.getLongVolatile(12), "offset 12");
        assertDeviceError(ErrorClass.ARG, () -> device.putLongVolatile(1, 1), "offset 1");
        assertDeviceError(ErrorClass.ARG, () -> device.compareAndSetLong(9, 0, 1), "compareAndSetLong", "offset 9");
        assertDeviceError(ErrorClass.ARG, () -> device.getAndAddLong(2, 1), "getAndAddLong", "offset 2");
        assertEquals(0, device.unpersistedBytes());
    }

    @Test
    void plainAccessesNeedNoAlignment() {
        device.putLong(3, 0x0102030405060708L);
        assertEquals(0x0102030405060708L, device.getLong(3));
        device.putInt(1, 0xCAFEBABE);
        assertEquals(0xCAFEBABE, device.getInt(1));
    }

    @Test
    void aCallersBufferThatIsTooSmallIsABufferError() {
        assertDeviceError(ErrorClass.BUFFER, () -> device.read(0, buffer, 60, 8), "buffer offset 60", "64 bytes");
        assertDeviceError(ErrorClass.BUFFER, () -> device.write(0, buffer, -1, 8), "buffer offset -1");
        assertDeviceError(ErrorClass.BUFFER, () -> device.read(0, buffer.asReadOnly(), 0, 8), "read-only");
        assertDeviceError(ErrorClass.BUFFER, () -> device.write(0, null, 0, 8), "null");
        assertEquals(0, device.statistics().reads() + device.statistics().writes());
    }
}
