package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.lockstep.api.ErrorClass;

/** Every access is checked before it touches the mapping. */
class AccessChecksTest {
    /** Not a multiple of the page size, so that the page-rounded tail of the mapping is outside the device. */
    private static final long CAPACITY = 10_000;

    private Path path;
    private MappedDevice device;

    @BeforeEach
    void open() {
        path = MappedTestSupport.shmPath("bounds");
        device = MappedTestSupport.open(path, CAPACITY, MappedDeviceOptions.DELETE_ON_CLOSE, "true");
    }

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void accessesOutsideTheDeviceAreDeviceErrorsThatNameTheOffset() {
        MemorySegment buffer = Arena.ofAuto().allocate(64);
        long last = CAPACITY - Long.BYTES;
        List<Executable> outside = List.of(
                () -> device.read(CAPACITY - 4, buffer, 0, 8), () -> device.write(CAPACITY, buffer, 0, 1),
                () -> device.read(-1, buffer, 0, 1), () -> device.write(0, buffer, 0, -1),
                () -> device.fill(CAPACITY - 1, 2, (byte) 1), () -> device.fill(Long.MAX_VALUE, Long.MAX_VALUE, (byte) 1),
                () -> device.getLong(CAPACITY - 7), () -> device.putLong(CAPACITY, 1),
                () -> device.getInt(CAPACITY - 3), () -> device.putInt(-4, 1),
                () -> device.getLongAcquire(last + 8), () -> device.putLongRelease(last + 8, 1),
                () -> device.getLongVolatile(-8), () -> device.putLongVolatile(Long.MIN_VALUE, 1),
                () -> device.compareAndSetLong(CAPACITY, 0, 1), () -> device.getAndAddLong(last + 8, 1),
                () -> device.persist(CAPACITY - 1, 2), () -> device.persist(0, CAPACITY + 1));
        for (Executable access : outside) {
            assertDeviceError(ErrorClass.DEVICE, access, "is outside the device [0, " + CAPACITY + ")");
        }
        assertEquals(0, device.statistics().reads() + device.statistics().writes(), "nothing was counted as done");
    }

    @Test
    void theLastBytesAreReachableAndTheLastWordToo() {
        device.putLongRelease(CAPACITY - Long.BYTES, -1);
        device.putInt(CAPACITY - Integer.BYTES - Long.BYTES, 5);
        assertEquals(-1, device.getLongAcquire(CAPACITY - Long.BYTES));
        assertEquals(5, device.getInt(CAPACITY - Integer.BYTES - Long.BYTES));
        device.persist(CAPACITY - 1, 1);
    }

    @Test
    void orderedAndAtomicWordsMustBeAligned() {
        List<Executable> misaligned = List.of(
                () -> device.getLongAcquire(4), () -> device.putLongRelease(12, 1),
                () -> device.getLongVolatile(1), () -> device.putLongVolatile(7, 1),
                () -> device.compareAndSetLong(20, 0, 1), () -> device.getAndAddLong(36, 1));
        for (Executable access : misaligned) {
            assertDeviceError(ErrorClass.ARG, access, "not 8-byte aligned");
        }
        device.putLong(3, 77); // plain words need no alignment
        assertEquals(77, device.getLong(3));
    }

    @Test
    void buffersAreCheckedToo() {
        MemorySegment small = Arena.ofAuto().allocate(16);
        assertDeviceError(ErrorClass.BUFFER, () -> device.read(0, small, 8, 16), "does not fit a buffer of 16 bytes");
        assertDeviceError(ErrorClass.BUFFER, () -> device.write(0, small, -1, 4), "buffer offset -1");
        assertDeviceError(ErrorClass.BUFFER, () -> device.read(0, null, 0, 4), "null buffer");
        assertDeviceError(ErrorClass.BUFFER, () -> device.read(0, small.asReadOnly(), 0, 4), "read-only");
    }
}
