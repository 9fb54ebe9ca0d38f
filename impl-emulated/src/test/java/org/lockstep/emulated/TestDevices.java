package org.lockstep.emulated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;
import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceSpec;

/** Opens emulated devices the way applications do (through the provider) and checks device errors. */
final class TestDevices {
    private TestDevices() {
    }

    /** A device of {@code capacity} bytes with the options given as key, value, key, value, ... */
    static EmulatedDevice open(long capacity, String... options) {
        DeviceSpec spec = DeviceSpec.of(EmulatedDeviceProvider.NAME, capacity);
        for (int i = 0; i < options.length; i += 2) {
            spec = spec.withOption(options[i], options[i + 1]);
        }
        return (EmulatedDevice) new EmulatedDeviceProvider().open(spec);
    }

    /** Asserts that {@code action} throws a {@link DeviceException} of {@code errorClass} whose message has every fragment. */
    static DeviceException assertDeviceError(ErrorClass errorClass, Executable action, String... fragments) {
        DeviceException error = assertThrows(DeviceException.class, action);
        assertEquals(errorClass, error.errorClass(), error::getMessage);
        for (String fragment : fragments) {
            assertTrue(error.getMessage().contains(fragment), () -> "'" + fragment + "' missing from: " + error.getMessage());
        }
        return error;
    }
}
