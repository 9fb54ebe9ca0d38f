package org.lockstep.conformance;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.lockstep.api.JobOptions;

/**
 * How a provider that runs over a device is told which device provider to open and with which
 * options, as job properties (for the mailbox transport {@code lockstep.device} and
 * {@code lockstep.device.option.<key>}). The kit uses it to put its interposing device between the
 * provider and the real device.
 *
 * @param deviceProperty     the job property that names the device provider
 * @param optionPrefix       the prefix of job properties passed to the device provider as options
 * @param defaultDevice      the device provider used when the property is absent
 */
public record DeviceRouting(String deviceProperty, String optionPrefix, String defaultDevice) {
    public DeviceRouting {
        Objects.requireNonNull(deviceProperty, "deviceProperty");
        Objects.requireNonNull(optionPrefix, "optionPrefix");
        Objects.requireNonNull(defaultDevice, "defaultDevice");
    }

    /** The routing of the in-repo mailbox transport. */
    public static final DeviceRouting MAILBOX = new DeviceRouting("lockstep.device", "lockstep.device.option.", "emulated");

    /** The device provider {@code options} name. */
    public String device(JobOptions options) {
        return options.property(deviceProperty).orElse(defaultDevice);
    }

    /** The device options in {@code options}, without the prefix. */
    public Map<String, String> deviceOptions(JobOptions options) {
        Map<String, String> found = new TreeMap<>();
        options.properties().forEach((key, value) -> {
            if (key.startsWith(optionPrefix)) {
                found.put(key.substring(optionPrefix.length()), value);
            }
        });
        return found;
    }

    /** {@code options} with the device provider replaced by {@code device} and these device options. */
    public JobOptions reroute(JobOptions options, String device, Map<String, String> deviceOptions) {
        Map<String, String> properties = new TreeMap<>();
        options.properties().forEach((key, value) -> {
            if (!key.startsWith(optionPrefix) && !key.equals(deviceProperty)) {
                properties.put(key, value);
            }
        });
        properties.put(deviceProperty, device);
        deviceOptions.forEach((key, value) -> properties.put(optionPrefix + key, value));
        return new JobOptions(options.ranks(), properties);
    }
}
