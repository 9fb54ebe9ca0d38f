package org.lockstep.pcie.mailbox;

import org.lockstep.pcie.collective.CollectiveSite;
import org.lockstep.pcie.collective.DeviceCollectiveProgress;
import org.lockstep.pcie.collective.DeviceCollectives;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.spi.device.ExternalMemory;

/**
 * How the communicators of one rank run their collectives: whether they may use the device
 * (every rank of a job says the same), the barrier the job asks for, whether the job's ranks
 * share cores (from the device, so every rank chooses alike), and the kit's collective faults.
 * Set once when the rank joins its world, before any communicator is made.
 */
final class CollectiveSettings {
    private final ExternalMemory device;
    private final CollectiveSite.Faults faults;
    /** With the message log on, collectives go through logged point-to-point messages: a restarted rank could not replay the device's. */
    private final boolean logged;
    private boolean useDevice;
    private DeviceCollectives.BarrierAlgorithm barrier;
    private boolean nonBlockingOnDevice = true;
    private final DeviceCollectiveProgress deviceProgress;

    CollectiveSettings(ExternalMemory device, boolean logged, CollectiveSite.Faults faults, DeviceCollectiveProgress deviceProgress) {
        this.device = device;
        this.deviceProgress = deviceProgress;
        this.faults = faults;
        this.useDevice = !logged;
        this.logged = logged;
    }

    /** Whether communicators may use the device-native collectives. */
    void useDevice(boolean use) {
        useDevice = use && !logged;
    }

    boolean usesDevice() {
        return useDevice;
    }

    /** Whether the non-blocking barrier, broadcast and allreduce run on the device (else as point-to-point schedules). */
    void nonBlockingOnDevice(boolean onDevice) {
        nonBlockingOnDevice = onDevice;
    }

    boolean nonBlockingOnDevice() {
        return nonBlockingOnDevice;
    }

    /** The rank's communicators with non-blocking device collectives in flight (its progress duty cycle advances them). */
    DeviceCollectiveProgress deviceProgress() {
        return deviceProgress;
    }

    /** The barrier the job asks for, or null to let the collectives choose. */
    void requestBarrier(DeviceCollectives.BarrierAlgorithm requested) {
        barrier = requested;
    }

    DeviceCollectives.BarrierAlgorithm requestedBarrier() {
        return barrier;
    }

    /** The collectives' kit self-test faults (none by default). */
    CollectiveSite.Faults faults() {
        return faults;
    }

    /**
     * Whether the job's ranks share cores, as the device's formatter found it: one answer for every
     * rank, so that the collectives all choose alike (this rank's waits back off by its own host).
     */
    boolean ranksShareCores() {
        return DeviceFormat.ranksShareCores(device);
    }
}
