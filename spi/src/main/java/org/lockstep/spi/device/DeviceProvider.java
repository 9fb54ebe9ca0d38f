package org.lockstep.spi.device;

/**
 * Opens devices of one kind. Registered as a service ({@code provides
 * org.lockstep.spi.device.DeviceProvider with ...} plus {@code META-INF/services}); in OSGi the
 * service loader mediator also publishes it in the service registry.
 */
public interface DeviceProvider {
    /** The name a {@link DeviceSpec} uses to choose this provider, e.g. {@code emulated} or {@code mapped}. */
    String name();

    /** One line that says what devices this provider opens. */
    String description();

    /**
     * Opens the device that {@code spec} describes.
     *
     * @throws DeviceException if it cannot be opened: missing path, too small, not mappable, no room
     */
    ExternalMemory open(DeviceSpec spec);
}
