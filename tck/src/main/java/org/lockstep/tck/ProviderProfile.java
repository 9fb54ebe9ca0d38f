package org.lockstep.tck;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.DeviceRouting;
import org.lockstep.conformance.ExternalMemoryRouting;
import org.lockstep.conformance.MessagingTarget;

/**
 * What the kit knows about a provider before it runs: its capability declarations and the job
 * properties of its worlds. The in-repo mailbox transport has a built-in profile (small rings and
 * heap, so that full mailboxes, the asynchronous mailbox and heap reuse are exercised quickly); any
 * other provider gets the declarations the user gives on the command line.
 *
 * @param capabilities what the provider declares
 * @param properties   job properties of every world
 */
public record ProviderProfile(Capabilities capabilities, Map<String, String> properties) {
    /** The mailbox transport's name. */
    public static final String MAILBOX = "mailbox";
    /** Mailbox job properties (those of org.lockstep.pcie.mailbox.MailboxOptions). */
    public static final String MAILBOX_THRESHOLD = "lockstep.mailbox.inlineThreshold";
    public static final String MAILBOX_SLOTS = "lockstep.mailbox.slots";
    public static final String MAILBOX_ASYNC_SLOTS = "lockstep.mailbox.asyncSlots";
    public static final String MAILBOX_HEAP = "lockstep.mailbox.heapPerRank";
    /** The mailbox transport's fault-injection hook, for the self-test only (the mutants that break its message log). */
    public static final String MAILBOX_FAULTS = "lockstep.mailbox.faults";
    /** The EM-BSP simulator's name and its fault-injection hook, for the self-test only (the mutants that break its I/O). */
    public static final String EMBSP = "embsp";
    public static final String EMBSP_FAULTS = "lockstep.embsp.faults";
    /** The largest world of the EM-BSP profile: the EMBSP rules run eight ranks on each of two real processors. */
    private static final int EMBSP_MAX_RANKS = 16;
    public static final String DEVICE = "lockstep.device";
    public static final String DEVICE_PATH = "lockstep.device.path";
    /** The device provider that maps device paths (files, /dev/shm, DAX, PCIe resource files). */
    public static final String MAPPED_DEVICE = "mapped";

    /** The kit's mailbox settings: a small threshold and rings, so that every path is taken with little traffic. */
    private static final int KIT_THRESHOLD = 256;
    private static final int KIT_SLOTS = 4;
    private static final int KIT_ASYNC_SLOTS = 8;
    private static final long KIT_HEAP = 256 << 10;
    private static final int KIT_MAX_RANKS = 16;

    public ProviderProfile {
        Objects.requireNonNull(capabilities, "capabilities");
        properties = Map.copyOf(properties);
    }

    /** The built-in profile of the mailbox transport over the emulated device. */
    public static ProviderProfile mailbox() {
        Map<String, String> p = new TreeMap<>();
        p.put(DEVICE, DeviceRouting.MAILBOX.defaultDevice());
        p.put(MAILBOX_THRESHOLD, Integer.toString(KIT_THRESHOLD));
        p.put(MAILBOX_SLOTS, Integer.toString(KIT_SLOTS));
        p.put(MAILBOX_ASYNC_SLOTS, Integer.toString(KIT_ASYNC_SLOTS));
        p.put(MAILBOX_HEAP, Long.toString(KIT_HEAP));
        Capabilities c = Capabilities.of(KIT_MAX_RANKS).withIndirectionThreshold(KIT_THRESHOLD).withIndirectBytesPerRank(KIT_HEAP)
                .withDeviceRouting(DeviceRouting.MAILBOX)
                // with lockstep.checkpoint=true (which the checkpoint rules set) the device is the message log
                .with(org.lockstep.conformance.Capability.PERSISTENCE)
                // ranks as separate processes on the mapped device (the process rules start them)
                .with(org.lockstep.conformance.Capability.SEPARATE_PROCESSES)
                // windows in device memory: every rank loads and stores the others' parts
                .with(org.lockstep.conformance.Capability.SHARED_WINDOWS);
        return new ProviderProfile(c, p);
    }

    /** The built-in profile of the EM-BSP simulator: its external memory declared, so that the EMBSP rules run. */
    public static ProviderProfile embsp() {
        return new ProviderProfile(Capabilities.of(EMBSP_MAX_RANKS).withExternalMemory(ExternalMemoryRouting.EMBSP), Map.of());
    }

    /** The built-in profile of {@code providerName}, if the kit has one. */
    public static Optional<ProviderProfile> builtIn(String providerName) {
        return switch (providerName) {
            case MAILBOX -> Optional.of(mailbox());
            case EMBSP -> Optional.of(embsp());
            default -> Optional.empty();
        };
    }

    /** This profile with the mailbox transport over the device at {@code path}, mapped by {@code deviceProvider}. */
    public ProviderProfile onDevice(String deviceProvider, String path) {
        Map<String, String> p = new TreeMap<>(properties);
        p.put(DEVICE, deviceProvider);
        p.put(DEVICE_PATH, path);
        return new ProviderProfile(capabilities, p);
    }

    /** This profile with more job properties (the user's {@code --option key=value}). */
    public ProviderProfile withProperties(Map<String, String> more) {
        Map<String, String> p = new TreeMap<>(properties);
        p.putAll(more);
        return new ProviderProfile(capabilities, p);
    }

    public ProviderProfile withCapabilities(Capabilities newCapabilities) {
        return new ProviderProfile(newCapabilities, properties);
    }

    /** The target of {@code provider} under this profile. */
    public MessagingTarget target(LockstepProvider provider) {
        return new MessagingTarget(provider.name(), provider, capabilities,
                ranks -> new JobOptions(ranks, properties));
    }
}
