package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;

/** A mapped device's regions: checked once when made, then direct, and still safe at their edges and after close. */
class WordRegionTest {
    private static final long CAPACITY = 10_000;
    private static final long BASE = 4096;
    private static final long LENGTH = 256;

    private Path path;
    private MappedDevice device;

    @BeforeEach
    void open() {
        path = MappedTestSupport.shmPath("region");
        device = MappedTestSupport.open(path, CAPACITY, MappedDeviceOptions.DELETE_ON_CLOSE, "true");
    }

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void aRegionReadsAndWritesTheDevicesBytesAtItsOffset() {
        WordRegion region = device.region(BASE, LENGTH);
        assertTrue(region.isDirect(), "a mapping's regions reach the memory directly");
        region.putLong(8, 0x1122334455667788L);
        region.putLongRelease(LENGTH - Long.BYTES, -5);
        region.putLong(17, 99); // plain words need no alignment
        assertEquals(0x1122334455667788L, device.getLong(BASE + 8));
        assertEquals(-5, device.getLongAcquire(BASE + LENGTH - Long.BYTES));
        assertEquals(99, region.getLong(17));
        device.putLongRelease(BASE + 32, 7);
        assertEquals(7, region.getLongAcquire(32));
        assertEquals(7, region.getLongVolatile(32));
        assertEquals(7, region.getInt(32));
        assertTrue(region.compareAndSetLong(32, 7, 8));
        assertEquals(8, device.getLong(BASE + 32));

        MemorySegment bytes = Arena.ofAuto().allocate(24);
        bytes.fill((byte) 3);
        region.write(40, bytes, 0, 24);
        MemorySegment back = Arena.ofAuto().allocate(24);
        device.read(BASE + 40, back, 0, 24);
        assertEquals(-1, bytes.mismatch(back));
        region.read(40, back, 1, 23);
        assertEquals(3, back.get(ValueLayout.JAVA_BYTE, 23));
    }

    @Test
    void shortAndLongReadsCopyExactlyTheirBytes() {
        WordRegion region = device.region(BASE, LENGTH);
        byte[] pattern = new byte[64];
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = (byte) (i * 7 + 1);
        }
        device.write(BASE, MemorySegment.ofArray(pattern), 0, pattern.length);
        for (int n = 0; n <= 48; n++) {
            byte[] into = new byte[64];
            java.util.Arrays.fill(into, (byte) -1);
            region.read(5, MemorySegment.ofArray(into), 3, n);
            for (int i = 0; i < into.length; i++) {
                byte expected = i >= 3 && i < 3 + n ? pattern[5 + i - 3] : (byte) -1;
                assertEquals(expected, into[i], "byte " + i + " of a read of " + n);
            }
        }
    }

    @Test
    void accessesOutsideTheRegionAreDeviceErrorsEvenWhereTheDeviceHasBytes() {
        WordRegion region = device.region(BASE, LENGTH);
        MemorySegment buffer = Arena.ofAuto().allocate(64);
        List<Executable> outside = List.of(
                () -> region.getLong(LENGTH - 7), () -> region.putLong(-8, 1), () -> region.getInt(LENGTH - 3),
                () -> region.getLongAcquire(LENGTH), () -> region.putLongRelease(-8, 1), () -> region.getLongVolatile(LENGTH),
                () -> region.compareAndSetLong(LENGTH, 0, 1), () -> region.read(LENGTH - 4, buffer, 0, 8),
                () -> region.write(-1, buffer, 0, 1), () -> region.write(0, buffer, 0, -1));
        for (Executable access : outside) {
            assertDeviceError(ErrorClass.DEVICE, access, "of the region [" + BASE + ", " + (BASE + LENGTH) + ") is outside it");
        }
        assertEquals(0, device.getLong(BASE + LENGTH), "nothing was written beyond the region");
        assertEquals(0, device.getLong(BASE - Long.BYTES), "nor before it");
    }

    @Test
    void orderedWordsMustBeAlignedAndBuffersMustFit() {
        WordRegion region = device.region(BASE, LENGTH);
        assertDeviceError(ErrorClass.ARG, () -> region.getLongAcquire(4), "not 8-byte aligned");
        assertDeviceError(ErrorClass.ARG, () -> region.putLongRelease(12, 1), "not 8-byte aligned");
        MemorySegment small = Arena.ofAuto().allocate(16);
        assertDeviceError(ErrorClass.BUFFER, () -> region.read(0, small, 8, 16), "does not fit a buffer of 16 bytes");
        assertDeviceError(ErrorClass.BUFFER, () -> region.read(0, small.asReadOnly(), 0, 8), "read-only");
    }

    @Test
    void aRegionIsCheckedWhenMade() {
        assertDeviceError(ErrorClass.DEVICE, () -> device.region(CAPACITY - 64, 128), "is outside the device [0, " + CAPACITY + ")");
        assertDeviceError(ErrorClass.DEVICE, () -> device.region(-64, 64), "is outside the device");
        assertDeviceError(ErrorClass.ARG, () -> device.region(BASE + 4, 64), "not 8-byte aligned");
    }

    @Test
    void afterCloseARegionsAccessesFailAsTheDevicesDo() {
        WordRegion region = device.region(BASE, LENGTH);
        device.close();
        assertDeviceError(ErrorClass.DEVICE, () -> region.getLongAcquire(0), "is closed: getLongAcquire at offset " + BASE);
        assertDeviceError(ErrorClass.DEVICE, () -> region.putLong(8, 1), "is closed: putLong at offset " + (BASE + 8));
        assertDeviceError(ErrorClass.DEVICE, () -> device.region(BASE, LENGTH), "is closed: region");
    }

    @Test
    void anEmulatedDevicesRegionGoesThroughItsCountedMethods() {
        try (ExternalMemory emulated = DeviceProviders.open(DeviceSpec.of("emulated", CAPACITY))) {
            WordRegion region = emulated.region(BASE, LENGTH);
            assertFalse(region.isDirect(), "a device with hooks of its own sees every access");
            region.putLongRelease(0, 1);
            assertEquals(1, region.getLongAcquire(0));
            assertEquals(1, emulated.statistics().writes());
            assertEquals(1, emulated.statistics().reads());
            assertDeviceError(ErrorClass.DEVICE, () -> region.getLong(LENGTH), "getLong", "of the region [" + BASE + ", ");
        }
    }
}
