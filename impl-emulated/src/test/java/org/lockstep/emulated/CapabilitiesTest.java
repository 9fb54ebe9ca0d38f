package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.lockstep.emulated.TestDevices.assertDeviceError;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceCapability;

class CapabilitiesTest {
    @Test
    void byDefaultTheDeviceHasAtomicsAndTrackedPersistenceAndNothingElse() {
        try (EmulatedDevice device = TestDevices.open(4096)) {
            assertEquals(EnumSet.of(DeviceCapability.ATOMIC_CAS, DeviceCapability.PERSISTENT, DeviceCapability.CRASH_INJECTION),
                    device.capabilities());
            assertThrows(UnsupportedOperationException.class, () -> device.capabilities().add(DeviceCapability.CROSS_PROCESS));
        }
    }

    @Test
    void withoutAtomicsReadModifyWriteReallyThrowsAndChangesNothing() {
        try (EmulatedDevice device = TestDevices.open(4096, "atomics", "false")) {
            assertEquals(Set.of(DeviceCapability.PERSISTENT, DeviceCapability.CRASH_INJECTION), device.capabilities());
            device.putLongVolatile(8, 41);
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.compareAndSetLong(8, 41, 42),
                    "compareAndSetLong", "offset 8", "ATOMIC_CAS");
            assertDeviceError(ErrorClass.UNSUPPORTED_OPERATION, () -> device.getAndAddLong(8, 1), "getAndAddLong", "ATOMIC_CAS");
            assertEquals(41, device.getLongVolatile(8));
            assertEquals(0, device.statistics().atomicOperations());
            // ordered single-writer words still work: the transport falls back to them
            device.putLongRelease(16, 7);
            assertEquals(7, device.getLongAcquire(16));
        }
    }

    @Test
    void aLatencyModelIsDeclaredOnlyWhenConfigured() {
        try (EmulatedDevice latency = TestDevices.open(4096, "latency", "1us");
             EmulatedDevice bandwidth = TestDevices.open(4096, "bandwidth", "1g");
             EmulatedDevice none = TestDevices.open(4096, "latency", "0", "bandwidth", "0")) {
            assertEquals(true, latency.has(DeviceCapability.LATENCY_MODEL));
            assertEquals(true, bandwidth.has(DeviceCapability.LATENCY_MODEL));
            assertEquals(false, none.has(DeviceCapability.LATENCY_MODEL));
        }
    }

    @Test
    void persistenceOffDeclaresNoPersistence() {
        try (EmulatedDevice device = TestDevices.open(4096, "persistence", "off", "atomics", "false")) {
            assertEquals(Set.of(), device.capabilities());
        }
    }
}
