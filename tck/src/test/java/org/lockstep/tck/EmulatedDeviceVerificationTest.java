package org.lockstep.tck;

import java.util.Optional;

import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.verification.DeviceVerification;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/** The device rules against the emulated device, with power loss through its crash operation. */
class EmulatedDeviceVerificationTest extends DeviceVerification {
    @Override
    protected ExternalMemory open(long capacity) {
        return DeviceProviders.open(DeviceSpec.of("emulated", capacity));
    }

    @Override
    protected Optional<DeviceTarget.PowerLoss> powerLoss() {
        return Optional.of(Tck::crashThroughDevice);
    }
}
