package org.lockstep.pcie.mailbox;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.collective.DeviceCollectives;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.ThreadWorld;

/** A world of ranks that are threads of this JVM, sharing one device formatted for the mailbox transport. */
public final class MailboxThreadWorld implements ThreadWorld {
    private static final Duration ATTACH_WAIT = Duration.ofSeconds(10);

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final AtomicReferenceArray<MailboxEndpoint> endpoints;
    private final long fragmentLength;
    private long singleCopyThreshold = MailboxOptions.DEFAULT_SINGLE_COPY_THRESHOLD;
    private boolean nativeCollectives = true;
    private DeviceCollectives.BarrierAlgorithm barrier;
    private boolean nonBlockingOnDevice = true;
    private final RestartPolicy restartPolicy;

    private MailboxThreadWorld(ExternalMemory device, MailboxLayout layout, long fragmentLength, RestartPolicy restartPolicy) {
        this.device = device;
        this.layout = layout;
        this.fragmentLength = fragmentLength;
        this.restartPolicy = restartPolicy;
        this.endpoints = new AtomicReferenceArray<>(layout.config().worldSize());
    }

    /**
     * Opens a device as {@code options} ask and formats it for {@code options.ranks()} ranks, or,
     * with {@value MailboxOptions#RECOVER}, recovers the job the device holds.
     */
    public static MailboxThreadWorld open(JobOptions options) {
        MailboxConfig wanted = MailboxOptions.config(options, options.ranks(), new SecureRandom().nextLong());
        DeviceSpec spec = MailboxOptions.deviceSpec(options, wanted, MailboxOptions.DEFAULT_DEVICE, Optional.empty());
        ExternalMemory device = DeviceProviders.open(spec);
        if (Boolean.parseBoolean(options.property(MailboxOptions.RECOVER).orElse("false"))) {
            try {
                MailboxThreadWorld world = afterPowerLoss(device, options);
                // Every rank's next incarnation is attached before any rank runs: a rank must not see a
                // peer's entry as the previous run left it (ended or failed) and give up on it.
                world.recoveredWorld = new Communicator[options.ranks()];
                for (int rank = 0; rank < options.ranks(); rank++) {
                    world.recoveredWorld[rank] = world.recovered(rank);
                }
                return world;
            } catch (RuntimeException e) {
                device.close();
                throw e;
            }
        }
        try {
            MailboxConfig config = MailboxOptions.forDevice(wanted, device);
            MailboxThreadWorld world = new MailboxThreadWorld(device, DeviceFormat.format(device, config, ATTACH_WAIT),
                    options.longProperty(MailboxOptions.FRAGMENT, MailboxOptions.DEFAULT_FRAGMENT), RestartPolicy.from(options));
            world.singleCopyThreshold = MailboxOptions.singleCopyThreshold(options);
            world.nativeCollectives = MailboxOptions.nativeCollectives(options);
            world.barrier = MailboxOptions.barrier(options);
            world.nonBlockingOnDevice = MailboxOptions.nonBlockingOnDevice(options);
            return world;
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    @Override
    public Communicator communicator(int rank) {
        if (recoveredWorld != null) {
            return recoveredWorld[rank];
        }
        MailboxEndpoint endpoint = new MailboxEndpoint(device, layout, rank, 1, fragmentLength, restartPolicy);
        endpoint.singleCopy().threshold(singleCopyThreshold);
        endpoint.collectiveSettings().useDevice(nativeCollectives);
        endpoint.collectiveSettings().requestBarrier(barrier);
        endpoint.collectiveSettings().nonBlockingOnDevice(nonBlockingOnDevice);
        endpoints.set(rank, endpoint);
        return MailboxCommunicator.world(endpoint);
    }

    /**
     * Starts the next incarnation of {@code rank} — as a launcher restarts a process that died —
     * over the same device, while the other ranks keep running. The previous incarnation's endpoint
     * is abandoned as a killed process's would be: the caller must not use it again. Its rank-table
     * entry is marked failed first, as the launcher's detection would see it.
     */
    public Communicator restart(int rank) {
        long entry = layout.rankEntry(rank);
        long incarnation = device.getLongAcquire(entry + RankTableDescriptor.INCARNATION_OFFSET);
        device.putLongRelease(entry + RankTableDescriptor.STATE_OFFSET, RankTableDescriptor.STATE_FAILED);
        MailboxEndpoint endpoint = new MailboxEndpoint(device, layout, rank, incarnation + 1, fragmentLength, restartPolicy);
        endpoints.set(rank, endpoint);
        return MailboxCommunicator.world(endpoint);
    }

    /**
     * The world after a power loss of the whole machine: attaches to the device as it survived
     * (checking its superblock), resets the mailbox rings — every rank restarts at once and what
     * was in flight but never persisted is gone; what was logged is replayed from the log — and
     * returns a world whose ranks are the next incarnations; a format the power loss cut short is
     * done afresh, and the ranks start from the beginning. Idempotent: a crash during it (or
     * during the recovery of the endpoints) is recovered by calling it again.
     */
    public static MailboxThreadWorld afterPowerLoss(ExternalMemory device, JobOptions options) {
        MailboxLayout layout;
        if (DeviceFormat.formatState(device) == SuperblockDescriptor.FORMAT_READY) {
            layout = DeviceFormat.attach(device, device.getLong(SuperblockDescriptor.JOB_KEY_OFFSET), options.ranks(), ATTACH_WAIT);
        } else {
            // Power was lost before the format was published: no rank had attached, so nothing of the
            // job existed yet, and its formatter died with the power. Waiting for it would wait for ever.
            MailboxConfig wanted = MailboxOptions.config(options, options.ranks(), new SecureRandom().nextLong());
            layout = DeviceFormat.redoInterruptedFormat(device, MailboxOptions.forDevice(wanted, device));
        }
        long rings = layout.mailboxAddress(0, 0);
        long ringsEnd = layout.heapPartition(0);
        device.fill(rings, ringsEnd - rings, (byte) 0);
        device.persist(rings, ringsEnd - rings);
        MailboxThreadWorld world = new MailboxThreadWorld(device, layout,
                options.longProperty(MailboxOptions.FRAGMENT, MailboxOptions.DEFAULT_FRAGMENT), RestartPolicy.from(options));
        world.nextIncarnation = true;
        return world;
    }

    private boolean nextIncarnation;
    /** With {@link MailboxOptions#RECOVER}: each rank's next incarnation, attached when the world opened. */
    private Communicator[] recoveredWorld;

    /** The communicator of {@code rank}'s next incarnation in a world made by {@link #afterPowerLoss}. */
    public Communicator recovered(int rank) {
        if (!nextIncarnation) {
            throw new IllegalStateException("not a world after power loss: use communicator(rank) or restart(rank)");
        }
        long entry = layout.rankEntry(rank);
        long incarnation = device.getLongAcquire(entry + RankTableDescriptor.INCARNATION_OFFSET);
        MailboxEndpoint endpoint = new MailboxEndpoint(device, layout, rank, incarnation + 1, fragmentLength, restartPolicy);
        device.persist(entry, RankTableDescriptor.ENTRY_LENGTH);
        endpoints.set(rank, endpoint);
        return MailboxCommunicator.world(endpoint);
    }

    /** The layout of the device (tests). */
    MailboxLayout layout() {
        return layout;
    }

    /** The current endpoint of {@code rank} (tests). */
    MailboxEndpoint endpoint(int rank) {
        return endpoints.get(rank);
    }

    @Override
    public void rankFinished(int rank) {
        Optional.ofNullable(endpoints.get(rank)).ifPresent(e -> e.lifecycle().markEnded(false));
    }

    @Override
    public void rankFailed(int rank, Throwable cause) {
        MailboxEndpoint endpoint = endpoints.get(rank);
        if (endpoint == null) {
            endpoint = new MailboxEndpoint(device, layout, rank, 1, fragmentLength, restartPolicy);
        }
        endpoint.lifecycle().markEnded(true);
    }

    /** The device the world runs on (for statistics). */
    public ExternalMemory device() {
        return device;
    }

    @Override
    public void close() {
        for (int r = 0; r < endpoints.length(); r++) {
            MailboxEndpoint e = endpoints.get(r);
            if (e != null) {
                e.lifecycle().close();
            }
        }
        device.close();
    }
}
