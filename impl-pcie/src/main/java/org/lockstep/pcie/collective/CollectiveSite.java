package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.ProcessFailedException;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * What the device-native collectives of one communicator need from the transport under it: the
 * device and its layout, the communicator's group and slot, progress, and who has failed.
 */
public interface CollectiveSite {
    /**
     * Deliberate breakages of the device collectives, for the compatibility kit's self-test only
     * (job property {@code lockstep.mailbox.faults}); {@link #NONE} otherwise.
     */
    record Faults(boolean reversesDirectFold, boolean skipsLastSharedPiece, boolean readsUnpublished) {
        public static final Faults NONE = new Faults(false, false, false);
    }

    /** The breakages the job asked for ({@link Faults#NONE} but in the kit's self-test). */
    default Faults faults() {
        return Faults.NONE;
    }

    ExternalMemory device();

    MailboxLayout layout();

    /** Communicator slot of the collective area, or -1 if this communicator has none. */
    int slot();

    int rank();

    int size();

    /** World rank of communicator rank {@code rank}. */
    int worldRank(int rank);

    /**
     * One round of the transport's progress (and of the rank's pending non-blocking collectives),
     * which also notices failed peers; a device-native wait calls it now and then.
     */
    void progress();

    /** Whether the member with communicator rank {@code rank} is known to have failed or finished. */
    boolean isGone(int rank);

    /** The error of a collective that waited on member {@code rank}, which is gone. */
    ProcessFailedException failure(int rank, String collective);

    /** The back-off of the transport's own waits. */
    IdleStrategy newIdleStrategy();

    /**
     * Whether the job's ranks share cores (more ranks than cores). The same on every member: the
     * collectives choose their algorithms by it.
     */
    boolean ranksShareCores();

    /**
     * Whether the non-blocking barrier, broadcast and allreduce may run on the device (the
     * default) rather than as point-to-point schedules (for measuring one against the other).
     */
    default boolean nonBlockingOnDevice() {
        return true;
    }

    /** The rank's communicators with non-blocking device collectives in flight, which its progress advances. */
    DeviceCollectiveProgress deviceProgress();

    /** The barrier the job asks for, or null to let the collectives choose. */
    DeviceCollectives.BarrierAlgorithm requestedBarrier();

    /**
     * The device offset of the first {@code bytes} bytes of {@code buffer} if they lie in one of
     * this rank's device buffers (memory its program allocated from the communicator), else -1.
     */
    long deviceOffset(MemorySegment buffer, long bytes);

    /** A device buffer of {@code bytes} bytes in this rank's heap partition, or null if there is no room. */
    MemorySegment allocateStaging(long bytes);

    /** Frees a buffer {@link #allocateStaging} returned. */
    void freeStaging(MemorySegment staging);
}
