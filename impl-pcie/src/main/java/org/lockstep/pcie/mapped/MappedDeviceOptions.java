package org.lockstep.pcie.mapped;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;

/**
 * The settings of a mapped device, parsed from {@link org.lockstep.spi.device.DeviceSpec#options()}.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>key</th><th>values</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code create}</td><td>{@code true}, {@code false}</td><td>{@code true}</td>
 *       <td>create a regular file of the spec's capacity when the path does not exist; {@code false}
 *       attaches only (a missing path is an error)</td></tr>
 *   <tr><td>{@code deleteOnClose}</td><td>{@code true}, {@code false}</td><td>{@code false}</td>
 *       <td>remove the file when the device is closed (for a launcher that created it); regular files only</td></tr>
 *   <tr><td>{@code atomics}</td><td>{@code true}, {@code false}</td><td>{@code true}</td>
 *       <td>{@code false} declines {@code ATOMIC_CAS} even where the device has it (e.g. CXL memory
 *       shared by hosts without coherent atomics); {@code true} cannot add atomics a PCIe BAR lacks</td></tr>
 * </table>
 *
 * @param create        whether a missing regular file is created
 * @param deleteOnClose whether the file is removed on close
 * @param atomics       whether atomic read-modify-write may be declared
 */
record MappedDeviceOptions(boolean create, boolean deleteOnClose, boolean atomics) {
    static final String CREATE = "create";
    static final String DELETE_ON_CLOSE = "deleteOnClose";
    static final String ATOMICS = "atomics";
    static final List<String> KEYS = List.of(CREATE, DELETE_ON_CLOSE, ATOMICS);

    static final MappedDeviceOptions DEFAULTS = new MappedDeviceOptions(true, false, true);

    /** The options in {@code options}; an unknown key or a malformed value is a {@link DeviceException}. */
    static MappedDeviceOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new DeviceException(ErrorClass.ARG, "mapped device: unknown option '" + key
                        + "' (known options: " + String.join(", ", KEYS) + ")");
            }
        }
        return new MappedDeviceOptions(
                flag(options, CREATE, DEFAULTS.create),
                flag(options, DELETE_ON_CLOSE, DEFAULTS.deleteOnClose),
                flag(options, ATOMICS, DEFAULTS.atomics));
    }

    private static boolean flag(Map<String, String> options, String key, boolean fallback) {
        String text = options.get(key);
        if (text == null) {
            return fallback;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new DeviceException(ErrorClass.ARG, "mapped device: option " + key + "='" + text
                    + "' is not valid: use true or false");
        };
    }
}
