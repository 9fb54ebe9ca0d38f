package org.lockstep.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.lockstep.spi.device.ExternalMemory;

/** What a device rule's check gets: the target and settings; devices it opens are closed after the check. */
public final class DeviceRuleContext implements AutoCloseable {
    private final DeviceTarget target;
    private final RunSettings settings;
    private final List<ExternalMemory> opened = new ArrayList<>();

    DeviceRuleContext(DeviceTarget target, RunSettings settings) {
        this.target = target;
        this.settings = settings;
    }

    public DeviceTarget target() {
        return target;
    }

    public RunSettings settings() {
        return settings;
    }

    /** A device of at least {@code capacity} bytes, closed when the check ends. */
    public ExternalMemory open(long capacity) {
        ExternalMemory device = target.open(capacity);
        opened.add(device);
        return device;
    }

    public Optional<DeviceTarget.PowerLoss> powerLoss() {
        return target.powerLoss();
    }

    @Override
    public void close() {
        for (ExternalMemory device : opened) {
            try {
                device.close();
            } catch (RuntimeException e) {
                // a device that fails to close is reported by the rule that checks closing
            }
        }
    }
}
