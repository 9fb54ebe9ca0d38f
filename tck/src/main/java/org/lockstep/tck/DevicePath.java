package org.lockstep.tck;

import java.util.Map;
import java.util.Optional;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.api.RankProgram;
import org.lockstep.api.Sizes;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Running the kit over a user's device path. Every world of the kit is a new job, and the mailbox
 * transport rightly refuses a device formatted by another job; so before each world the kit blanks
 * the start of the device (where the superblock lives), and every world maps the device at one
 * size, the device's own. The kit overwrites the device: never point it at one that holds data.
 */
final class DevicePath {
    /** Size of a device file the kit creates (an existing device keeps its own size). */
    static final long DEFAULT_SIZE = 64L << 20;
    /** Bytes blanked before each world: the superblock's block and more. */
    static final long BLANKED = 64L << 10;
    static final String SIZE_PROPERTY = "lockstep.device.size";

    private DevicePath() {
    }

    /** The profile over the device at {@code path}, and a provider that blanks the device before each world. */
    record Prepared(ProviderProfile profile, LockstepProvider provider, long capacity) {
    }

    static Prepared prepare(ProviderProfile profile, LockstepProvider provider, String deviceProvider, String path) {
        long wanted = Optional.ofNullable(profile.properties().get(SIZE_PROPERTY)).map(s -> Sizes.parse(SIZE_PROPERTY, s))
                .orElse(DEFAULT_SIZE);
        long capacity;
        try (ExternalMemory d = open(deviceProvider, path, wanted)) {
            capacity = d.capacity();
        }
        ProviderProfile onDevice = profile.onDevice(deviceProvider, path).withProperties(Map.of(SIZE_PROPERTY, Long.toString(capacity)));
        return new Prepared(onDevice, new Blanking(provider, deviceProvider, path, capacity), capacity);
    }

    static ExternalMemory open(String deviceProvider, String path, long capacity) {
        return DeviceProviders.open(new DeviceSpec(deviceProvider, capacity, DeviceSpec.DEFAULT_BLOCK_SIZE, Optional.of(path), Map.of()));
    }

    /** A provider whose every world starts on a blank device. */
    static final class Blanking implements LockstepProvider {
        private final LockstepProvider provider;
        private final String deviceProvider;
        private final String path;
        private final long capacity;

        Blanking(LockstepProvider provider, String deviceProvider, String path, long capacity) {
            this.provider = provider;
            this.deviceProvider = deviceProvider;
            this.path = path;
            this.capacity = capacity;
        }

        @Override
        public String name() {
            return provider.name();
        }

        @Override
        public String description() {
            return provider.description();
        }

        @Override
        public void runInThreads(JobOptions options, RankProgram program) {
            try (ExternalMemory d = open(deviceProvider, path, capacity)) {
                long n = Math.min(BLANKED, d.capacity());
                d.fill(0, n, (byte) 0);
                d.persist(0, n);
            }
            provider.runInThreads(options, program);
        }
    }
}
