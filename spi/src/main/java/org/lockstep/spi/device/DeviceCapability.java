package org.lockstep.spi.device;

/**
 * What a device can do. A provider declares exactly the capabilities it has: the transport and
 * the TCK rely on the declaration being truthful.
 */
public enum DeviceCapability {
    /**
     * 8-byte aligned compare-and-set and get-and-add are atomic across every party that maps the
     * device. CPU atomics are not guaranteed on PCIe device memory (a BAR), so a device may lack
     * this; the transport then uses single-writer control words only.
     */
    ATOMIC_CAS,
    /** {@link ExternalMemory#persist(long, long)} makes written bytes survive power loss. */
    PERSISTENT,
    /** Other processes (and hosts) may map the same device at the same time. */
    CROSS_PROCESS,
    /** The device can lose unpersisted writes on demand, as at power loss (an emulator's test aid). */
    CRASH_INJECTION,
    /** Accesses are delayed by a latency/bandwidth model. */
    LATENCY_MODEL
}
