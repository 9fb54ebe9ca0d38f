package org.lockstep.emulated;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Sizes;
import org.lockstep.spi.device.DeviceException;

/**
 * The settings of an emulated device, parsed from {@link org.lockstep.spi.device.DeviceSpec#options()}.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>key</th><th>values</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code atomics}</td><td>{@code true}, {@code false}</td><td>{@code true}</td>
 *       <td>{@code false} emulates a PCIe BAR: no {@code ATOMIC_CAS}, compare-and-set and get-and-add throw</td></tr>
 *   <tr><td>{@code persistence}</td><td>{@code track}, {@code off}</td><td>{@code track}</td>
 *       <td>{@code track} keeps a dirty map and a durable image (about twice the memory) so that
 *       unpersisted bytes can be queried and lost by {@link EmulatedDevice#crash()}</td></tr>
 *   <tr><td>{@code latency}</td><td>a duration with unit: {@code 200ns}, {@code 50us}, {@code 1ms}, {@code 0}</td>
 *       <td>{@code 0}</td><td>fixed delay of every access</td></tr>
 *   <tr><td>{@code bandwidth}</td><td>bytes per second: {@code 2g}, {@code 500m}, {@code 0} (unlimited)</td>
 *       <td>{@code 0}</td><td>adds {@code bytes / bandwidth} to the delay of every access</td></tr>
 * </table>
 *
 * @param atomics                whether the device declares and performs atomic read-modify-write
 * @param persistence            how persistence is tracked
 * @param latencyNanos           fixed delay of every access, in nanoseconds (0: none)
 * @param bandwidthBytesPerSecond transfer rate that bounds every access (0: unlimited)
 */
record EmulatedDeviceOptions(boolean atomics, Persistence persistence, long latencyNanos, long bandwidthBytesPerSecond) {
    static final String ATOMICS = "atomics";
    static final String PERSISTENCE = "persistence";
    static final String LATENCY = "latency";
    static final String BANDWIDTH = "bandwidth";
    static final List<String> KEYS = List.of(ATOMICS, PERSISTENCE, LATENCY, BANDWIDTH);

    static final EmulatedDeviceOptions DEFAULTS = new EmulatedDeviceOptions(true, Persistence.TRACK, 0, 0);

    /** How an emulated device tracks persistence. */
    enum Persistence {
        /** Dirty map and durable image: unpersisted bytes are known and a crash loses them. */
        TRACK,
        /** No tracking: {@code persist} only orders writes. */
        OFF
    }

    EmulatedDeviceOptions {
        if (latencyNanos < 0) {
            throw invalid(LATENCY, Long.toString(latencyNanos), "must not be negative");
        }
        if (bandwidthBytesPerSecond < 0) {
            throw invalid(BANDWIDTH, Long.toString(bandwidthBytesPerSecond), "must not be negative");
        }
    }

    /** Whether accesses are delayed. */
    boolean latencyModelled() {
        return latencyNanos > 0 || bandwidthBytesPerSecond > 0;
    }

    /** The options in {@code options}; an unknown key or a malformed value is a {@link DeviceException}. */
    static EmulatedDeviceOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new DeviceException(ErrorClass.ARG, "emulated device: unknown option '" + key
                        + "' (known options: " + String.join(", ", KEYS) + ")");
            }
        }
        boolean atomics = options.containsKey(ATOMICS) ? parseBoolean(ATOMICS, options.get(ATOMICS)) : DEFAULTS.atomics;
        Persistence persistence = options.containsKey(PERSISTENCE)
                ? parsePersistence(options.get(PERSISTENCE)) : DEFAULTS.persistence;
        long latency = options.containsKey(LATENCY) ? parseDurationNanos(LATENCY, options.get(LATENCY)) : DEFAULTS.latencyNanos;
        long bandwidth = options.containsKey(BANDWIDTH)
                ? parseBandwidth(options.get(BANDWIDTH)) : DEFAULTS.bandwidthBytesPerSecond;
        return new EmulatedDeviceOptions(atomics, persistence, latency, bandwidth);
    }

    private static boolean parseBoolean(String key, String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid(key, text, "use true or false");
        };
    }

    private static Persistence parsePersistence(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "track" -> Persistence.TRACK;
            case "off" -> Persistence.OFF;
            default -> throw invalid(PERSISTENCE, text, "use track or off");
        };
    }

    /** A duration such as {@code 50us}; a number needs a unit unless it is zero. */
    static long parseDurationNanos(String key, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        record Unit(String suffix, TimeUnit unit) {
        }
        // longest suffixes first, so that "ms" and "ns" are not read as "s"
        List<Unit> units = List.of(new Unit("ns", TimeUnit.NANOSECONDS), new Unit("us", TimeUnit.MICROSECONDS),
                new Unit("µs", TimeUnit.MICROSECONDS), new Unit("ms", TimeUnit.MILLISECONDS), new Unit("s", TimeUnit.SECONDS));
        for (Unit unit : units) {
            if (t.endsWith(unit.suffix())) {
                long amount = parseNonNegative(key, text, t.substring(0, t.length() - unit.suffix().length()));
                long nanos = unit.unit().toNanos(amount);
                if (nanos == Long.MAX_VALUE) {
                    throw invalid(key, text, "too long");
                }
                return nanos;
            }
        }
        if (t.equals("0")) {
            return 0;
        }
        throw invalid(key, text, "use a duration with a unit, e.g. 200ns, 50us, 1ms");
    }

    private static long parseNonNegative(String key, String original, String digits) {
        try {
            long value = Long.parseLong(digits.trim());
            if (value < 0) {
                throw invalid(key, original, "must not be negative");
            }
            return value;
        } catch (NumberFormatException e) {
            throw invalid(key, original, "not a number");
        }
    }

    private static long parseBandwidth(String text) {
        String t = text.trim();
        if (t.toLowerCase(Locale.ROOT).endsWith("/s")) {
            t = t.substring(0, t.length() - 2);
        }
        long value;
        try {
            value = Sizes.parse(BANDWIDTH, t);
        } catch (LockstepException e) {
            throw invalid(BANDWIDTH, text, "use bytes per second, e.g. 2g, 500m, 0 for unlimited");
        }
        if (value < 0) {
            throw invalid(BANDWIDTH, text, "must not be negative");
        }
        return value;
    }

    private static DeviceException invalid(String key, String value, String hint) {
        return new DeviceException(ErrorClass.ARG, "emulated device: option " + key + "='" + value + "' is invalid: " + hint);
    }
}
