package org.lockstep.pcie.mapped;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.pcie.mapped.MappedTestSupport.assertDeviceError;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

class MappedProviderTest {
    @Test
    void theServiceLoaderFindsTheProviderByName() {
        assertInstanceOf(MappedDeviceProvider.class, DeviceProviders.named(MappedDeviceProvider.NAME));
        Path path = MappedTestSupport.shmPath("loader");
        try (ExternalMemory device = DeviceProviders.open(MappedTestSupport.spec(path, 4096,
                MappedDeviceOptions.DELETE_ON_CLOSE, "true"))) {
            assertInstanceOf(MappedDevice.class, device);
            assertEquals(4096, device.capacity());
            assertEquals(DeviceSpec.DEFAULT_BLOCK_SIZE, device.blockSize());
        }
    }

    @Test
    void aSpecWithoutAPathOrWithAnUnknownOptionIsAnArgumentError() {
        MappedDeviceProvider provider = new MappedDeviceProvider();
        assertDeviceError(ErrorClass.ARG, () -> provider.open(DeviceSpec.of(MappedDeviceProvider.NAME, 4096)), "names no path");
        Path path = MappedTestSupport.shmPath("options");
        assertDeviceError(ErrorClass.ARG, () -> provider.open(MappedTestSupport.spec(path, 4096, "sync", "true")),
                "unknown option 'sync'", "deleteOnClose");
        assertDeviceError(ErrorClass.ARG, () -> provider.open(MappedTestSupport.spec(path, 4096,
                MappedDeviceOptions.DELETE_ON_CLOSE, "yes")), "deleteOnClose='yes'", "true or false");
        assertDeviceError(ErrorClass.ARG, () -> provider.open(DeviceSpec.of(MappedDeviceProvider.NAME, 4096).withPath("bad\0path")),
                "not a valid path");
        assertTrue(provider.description().contains("/dev/shm"));
    }
}
