package org.lockstep.pcie.mailbox;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
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

    private MailboxThreadWorld(ExternalMemory device, MailboxLayout layout, long fragmentLength) {
        this.device = device;
        this.layout = layout;
        this.fragmentLength = fragmentLength;
        this.endpoints = new AtomicReferenceArray<>(layout.config().worldSize());
    }

    /** Opens a device as {@code options} ask and formats it for {@code options.ranks()} ranks. */
    public static MailboxThreadWorld open(JobOptions options) {
        MailboxConfig wanted = MailboxOptions.config(options, options.ranks(), new SecureRandom().nextLong());
        DeviceSpec spec = MailboxOptions.deviceSpec(options, wanted, MailboxOptions.DEFAULT_DEVICE, Optional.empty());
        ExternalMemory device = DeviceProviders.open(spec);
        try {
            MailboxConfig config = MailboxOptions.forDevice(wanted, device);
            MailboxThreadWorld world = new MailboxThreadWorld(device, DeviceFormat.format(device, config, ATTACH_WAIT),
                    options.longProperty(MailboxOptions.FRAGMENT, MailboxOptions.DEFAULT_FRAGMENT));
            world.singleCopyThreshold = MailboxOptions.singleCopyThreshold(options);
            world.nativeCollectives = MailboxOptions.nativeCollectives(options);
            return world;
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    @Override
    public Communicator communicator(int rank) {
        MailboxEndpoint endpoint = new MailboxEndpoint(device, layout, rank, 1, fragmentLength);
        endpoint.singleCopy().threshold(singleCopyThreshold);
        endpoint.useDeviceCollectives(nativeCollectives);
        endpoints.set(rank, endpoint);
        return MailboxCommunicator.world(endpoint);
    }

    @Override
    public void rankFinished(int rank) {
        Optional.ofNullable(endpoints.get(rank)).ifPresent(e -> e.markEnded(false));
    }

    @Override
    public void rankFailed(int rank, Throwable cause) {
        MailboxEndpoint endpoint = endpoints.get(rank);
        if (endpoint == null) {
            endpoint = new MailboxEndpoint(device, layout, rank, 1, fragmentLength);
        }
        endpoint.markEnded(true);
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
                e.close();
            }
        }
        device.close();
    }
}
