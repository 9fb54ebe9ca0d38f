package org.lockstep.spi.device;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What device to open: the provider's name, the capacity and block size wanted, an optional
 * path (a file, {@code /dev/shm} file, DAX device or PCIe resource file), and provider options.
 *
 * @param provider  name of the {@link DeviceProvider}, e.g. {@code emulated}
 * @param capacity  bytes wanted (a provider that maps an existing device may take the device's size)
 * @param blockSize the device's access granularity in bytes (a power of two)
 * @param path      the device path, where the provider maps one
 * @param options   provider-specific settings
 */
public record DeviceSpec(String provider, long capacity, int blockSize, Optional<String> path, Map<String, String> options) {
    public static final int DEFAULT_BLOCK_SIZE = 4096;

    public DeviceSpec {
        if (provider == null || provider.isBlank()) {
            throw new IllegalArgumentException("device provider name is empty");
        }
        if (capacity <= 0) {
            throw new IllegalArgumentException("device capacity must be positive, got " + capacity);
        }
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("device block size must be a power of two, got " + blockSize);
        }
        path = path == null ? Optional.empty() : path;
        options = Map.copyOf(options);
    }

    public static DeviceSpec of(String provider, long capacity) {
        return new DeviceSpec(provider, capacity, DEFAULT_BLOCK_SIZE, Optional.empty(), Map.of());
    }

    public DeviceSpec withOption(String key, String value) {
        Map<String, String> copy = new TreeMap<>(options);
        copy.put(key, value);
        return new DeviceSpec(provider, capacity, blockSize, path, copy);
    }

    public DeviceSpec withBlockSize(int newBlockSize) {
        return new DeviceSpec(provider, capacity, newBlockSize, path, options);
    }

    public DeviceSpec withPath(String newPath) {
        return new DeviceSpec(provider, capacity, blockSize, Optional.of(newPath), options);
    }

    public Optional<String> option(String key) {
        return Optional.ofNullable(options.get(key));
    }
}
