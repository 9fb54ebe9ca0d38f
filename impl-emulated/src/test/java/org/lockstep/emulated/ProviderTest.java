package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.lockstep.emulated.TestDevices.assertDeviceError;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceProvider;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

class ProviderTest {
    @Test
    void theServiceLoaderFindsTheProviderByName() {
        DeviceProvider provider = DeviceProviders.named("emulated");
        assertInstanceOf(EmulatedDeviceProvider.class, provider);
        assertTrue(provider.description().contains("latency"), provider.description());
    }

    @Test
    void aSpecOpensADeviceOfItsCapacityAndBlockSize() {
        DeviceSpec spec = DeviceSpec.of("emulated", 1 << 16).withBlockSize(512).withPath("rank-box");
        try (ExternalMemory device = DeviceProviders.open(spec)) {
            assertEquals(1 << 16, device.capacity());
            assertEquals(512, device.blockSize());
            assertEquals("rank-box", device.name());
            assertEquals(1 << 16, device.asSegment().byteSize());
            assertEquals(0, device.asSegment().address() % 512, "memory is aligned to the block size");
            assertEquals(0, device.getLong(1 << 15), "fresh memory is zero");
        }
    }

    @Test
    void unnamedDevicesGetDistinctNames() {
        try (ExternalMemory first = TestDevices.open(64); ExternalMemory second = TestDevices.open(64)) {
            assertFalse(first.name().equals(second.name()));
        }
    }

    @Test
    void anUnknownOptionIsRefusedAndTheKnownOnesListed() {
        DeviceSpec spec = DeviceSpec.of("emulated", 4096).withOption("latncy", "50us");
        assertDeviceError(ErrorClass.ARG, () -> new EmulatedDeviceProvider().open(spec),
                "unknown option 'latncy'", "latency", "bandwidth", "atomics", "persistence");
    }

    @Test
    void malformedOptionValuesAreRefusedWithTheValue() {
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "atomics", "maybe"), "atomics='maybe'", "true or false");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "persistence", "always"), "persistence='always'");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "latency", "50"), "latency='50'", "unit");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "latency", "-5us"), "latency='-5us'");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "latency", "fastus"), "latency='fastus'");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "bandwidth", "lots"), "bandwidth='lots'");
        assertDeviceError(ErrorClass.ARG, () -> TestDevices.open(64, "bandwidth", "-1g"), "bandwidth='-1g'");
    }

    @Test
    void durationsAndBandwidthsParseWithTheirUnits() {
        assertEquals(200, EmulatedDeviceOptions.parseDurationNanos("latency", "200ns"));
        assertEquals(50_000, EmulatedDeviceOptions.parseDurationNanos("latency", "50us"));
        assertEquals(50_000, EmulatedDeviceOptions.parseDurationNanos("latency", "50µs"));
        assertEquals(3_000_000, EmulatedDeviceOptions.parseDurationNanos("latency", "3ms"));
        assertEquals(2_000_000_000, EmulatedDeviceOptions.parseDurationNanos("latency", "2s"));
        assertEquals(0, EmulatedDeviceOptions.parseDurationNanos("latency", "0"));
        assertEquals(2L << 30, EmulatedDeviceOptions.parse(java.util.Map.of("bandwidth", "2g/s")).bandwidthBytesPerSecond());
    }

    @Test
    void aCapacityBeyondTheAvailableMemoryIsANoMemoryError() {
        long tooLarge = 1L << 50;
        assertDeviceError(ErrorClass.NO_MEM, () -> TestDevices.open(tooLarge, "persistence", "off"),
                "cannot allocate " + tooLarge + " bytes", "MaxDirectMemorySize");
    }

    @Test
    void aBlockSizeThatIsNotAPowerOfTwoIsRefused() {
        IllegalArgumentException specError = assertThrows(IllegalArgumentException.class,
                () -> DeviceSpec.of("emulated", 4096).withBlockSize(3000));
        assertTrue(specError.getMessage().contains("3000"), specError.getMessage());
        assertDeviceError(ErrorClass.ARG, () -> new EmulatedDevice("direct", 4096, 3000, EmulatedDeviceOptions.DEFAULTS),
                "power of two", "3000");
    }

    @Test
    void moduleDescriptorAndBundleManifestAgree() throws IOException {
        Module module = EmulatedDevice.class.getModule();
        ModuleDescriptor descriptor = module.getDescriptor();
        assertEquals("org.lockstep.emulated", descriptor.name());
        assertTrue(descriptor.exports().isEmpty(), "a provider module exports nothing");
        assertTrue(descriptor.provides().stream().anyMatch(p -> p.service().equals(DeviceProvider.class.getName())
                && p.providers().equals(java.util.List.of(EmulatedDeviceProvider.class.getName()))));
        try (InputStream in = module.getResourceAsStream("META-INF/MANIFEST.MF")) {
            assertTrue(in != null, "bnd wrote no manifest");
            var attributes = new Manifest(in).getMainAttributes();
            assertEquals(descriptor.name(), attributes.getValue("Bundle-SymbolicName"));
            assertEquals(null, attributes.getValue("Export-Package"));
            String capabilities = attributes.getValue("Provide-Capability");
            assertTrue(capabilities.contains("osgi.serviceloader=\"" + DeviceProvider.class.getName() + "\"")
                    && capabilities.contains(EmulatedDeviceProvider.class.getName()), capabilities);
        }
        try (InputStream in = module.getResourceAsStream("META-INF/services/" + DeviceProvider.class.getName())) {
            assertEquals(EmulatedDeviceProvider.class.getName(), new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim());
        }
    }
}
