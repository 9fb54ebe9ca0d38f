package org.lockstep.conformance.device;

import java.util.Map;
import java.util.TreeMap;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.DeviceProvider;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The device provider {@value #NAME}: opens the device provider named by the option
 * {@code conformance.inner} with the remaining options, and returns it decorated by the
 * {@link DeviceInterposer} session named by {@code conformance.session}. Only the conformance kit
 * opens sessions; without one, opening fails.
 */
public final class InterposingDeviceProvider implements DeviceProvider {
    public static final String NAME = "conformance-interposer";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "the conformance kit's interposer: a real device, observed or broken on purpose by a kit session";
    }

    @Override
    public ExternalMemory open(DeviceSpec spec) {
        String sessionIds = spec.options().get(DeviceInterposer.SESSION_OPTION);
        java.util.List<DeviceInterposer.Session> sessions = new java.util.ArrayList<>();
        for (String id : (sessionIds == null ? "" : sessionIds).split(DeviceInterposer.SESSION_SEPARATOR)) {
            sessions.add(DeviceInterposer.session(id.isEmpty() ? null : id));
        }
        String inner = spec.options().get(DeviceInterposer.INNER_OPTION);
        if (inner == null || inner.equals(NAME)) {
            throw new DeviceException(ErrorClass.ARG, NAME + ": option " + DeviceInterposer.INNER_OPTION + " must name the real device provider");
        }
        Map<String, String> rest = new TreeMap<>(spec.options());
        rest.remove(DeviceInterposer.SESSION_OPTION);
        rest.remove(DeviceInterposer.INNER_OPTION);
        ExternalMemory device = DeviceProviders.open(new DeviceSpec(inner, spec.capacity(), spec.blockSize(), spec.path(), rest));
        try {
            ExternalMemory decorated = device;
            for (DeviceInterposer.Session session : sessions) {
                decorated = session.decorate(decorated);
            }
            return decorated;
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }
}
