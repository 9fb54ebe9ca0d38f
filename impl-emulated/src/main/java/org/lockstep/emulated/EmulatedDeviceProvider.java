package org.lockstep.emulated;

import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.spi.device.DeviceProvider;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The device provider {@code emulated}: opens an {@link EmulatedDevice} of the spec's capacity and
 * block size, configured by the spec's {@linkplain EmulatedDeviceOptions options}. The emulator
 * maps nothing: a path in the spec only names the device.
 */
public final class EmulatedDeviceProvider implements DeviceProvider {
    /** The provider name a {@link DeviceSpec} uses. */
    public static final String NAME = "emulated";

    private static final AtomicLong OPENED = new AtomicLong();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "in-memory emulator of a PCIe-linked storage device (options: "
                + String.join(", ", EmulatedDeviceOptions.KEYS) + ")";
    }

    @Override
    public ExternalMemory open(DeviceSpec spec) {
        EmulatedDeviceOptions options = EmulatedDeviceOptions.parse(spec.options());
        String deviceName = spec.path().orElseGet(() -> NAME + "-" + OPENED.incrementAndGet());
        return new EmulatedDevice(deviceName, spec.capacity(), spec.blockSize(), options);
    }
}
