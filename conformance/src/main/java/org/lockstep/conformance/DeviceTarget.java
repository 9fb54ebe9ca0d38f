package org.lockstep.conformance;

import java.util.Objects;
import java.util.Optional;
import java.util.function.LongFunction;

import org.lockstep.spi.device.ExternalMemory;

/**
 * A device under test: how to open one of a given capacity (a fresh one, or the user's device
 * path), and how to cut its power, where the device can emulate that.
 *
 * @param name      how reports name it
 * @param opener    opens a device of at least the given capacity
 * @param powerLoss how to lose the device's unpersisted writes, for a device that declares
 *                  {@link org.lockstep.spi.device.DeviceCapability#CRASH_INJECTION}
 */
public record DeviceTarget(String name, LongFunction<ExternalMemory> opener, Optional<PowerLoss> powerLoss) {
    /** Emulated power loss: the device's unpersisted writes are lost, the device stays open. */
    @FunctionalInterface
    public interface PowerLoss {
        void crash(ExternalMemory device);
    }

    public DeviceTarget {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(opener, "opener");
        Objects.requireNonNull(powerLoss, "powerLoss");
    }

    /** Opens a device of at least {@code capacity} bytes. */
    public ExternalMemory open(long capacity) {
        return Objects.requireNonNull(opener.apply(capacity), "the device target opened null");
    }
}
