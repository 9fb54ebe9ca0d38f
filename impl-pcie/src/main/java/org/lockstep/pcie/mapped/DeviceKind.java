package org.lockstep.pcie.mapped;

/** The kinds of path the mapped device provider maps; each has its own capabilities and persist method. */
public enum DeviceKind {
    /**
     * A regular file, e.g. in {@code /dev/shm} or on a disk or DAX file system: shared mapping,
     * CPU atomics, {@code msync} makes it durable unless the file system lives in RAM.
     */
    REGULAR_FILE("regular file"),
    /**
     * A device-DAX character device {@code /dev/daxX.Y} (persistent memory, CXL memory): mapped with
     * {@code MAP_SYNC} where the kernel offers it, CPU atomics.
     */
    DAX_DEVICE("DAX character device"),
    /**
     * A PCIe BAR exposed by sysfs, {@code /sys/bus/pci/devices/<address>/resourceN}: device memory,
     * where CPU atomics are not guaranteed.
     */
    PCI_BAR("PCI BAR resource file");

    private final String description;

    DeviceKind(String description) {
        this.description = description;
    }

    /** How messages name this kind, e.g. {@code regular file}. */
    public String description() {
        return description;
    }
}
