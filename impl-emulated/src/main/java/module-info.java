/**
 * An emulator of a PCIe-linked storage device (off-heap memory with bounds checks, counters,
 * persistence tracking, crash injection and an optional latency/bandwidth model), offered as the
 * device provider {@code emulated}. Exports nothing: it is found through the service loader.
 */
module org.lockstep.emulated {
    requires org.lockstep.spi;

    provides org.lockstep.spi.device.DeviceProvider with org.lockstep.emulated.EmulatedDeviceProvider;
}
