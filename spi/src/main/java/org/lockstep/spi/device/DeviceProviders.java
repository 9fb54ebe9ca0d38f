package org.lockstep.spi.device;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

import org.lockstep.api.ErrorClass;

/** Finds {@link DeviceProvider}s with {@link ServiceLoader} and opens devices by provider name. */
public final class DeviceProviders {
    private DeviceProviders() {
    }

    /** Every installed device provider. */
    public static List<DeviceProvider> installed() {
        List<DeviceProvider> found = new ArrayList<>();
        ServiceLoader.load(DeviceProvider.class, DeviceProviders.class.getClassLoader()).forEach(found::add);
        if (found.isEmpty()) {
            ServiceLoader.load(DeviceProvider.class).forEach(found::add);
        }
        return found;
    }

    /** The provider called {@code name}, or a {@link DeviceException} that lists the installed ones. */
    public static DeviceProvider named(String name) {
        List<DeviceProvider> installed = installed();
        return installed.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(() ->
                new DeviceException(ErrorClass.NO_PROVIDER, "no device provider named '" + name + "'; installed: "
                        + (installed.isEmpty() ? "none" : installed.stream()
                        .map(p -> p.name() + " (" + p.description() + ")").collect(Collectors.joining(", ")))));
    }

    /** Opens the device {@code spec} describes with the provider it names. */
    public static ExternalMemory open(DeviceSpec spec) {
        return named(spec.provider()).open(spec);
    }
}
