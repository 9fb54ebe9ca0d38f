package org.lockstep.pcie.mailbox;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.collective.DeviceCollectives.BarrierAlgorithm;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.IdleStrategy;

/** The job properties the mailbox transport reads, with their defaults. */
public final class MailboxOptions {
    /** Name of the device provider ({@code emulated}; {@code mapped} with the multi-process issue). */
    public static final String DEVICE = "lockstep.device";
    /** Device capacity; by default exactly what the layout needs. */
    public static final String DEVICE_SIZE = "lockstep.device.size";
    /** Device path, for providers that map one. */
    public static final String DEVICE_PATH = "lockstep.device.path";
    /** Access granularity of the device. */
    public static final String BLOCK_SIZE = "lockstep.device.blockSize";
    /** Prefix of options passed to the device provider, e.g. {@code lockstep.device.option.latency=50us}. */
    public static final String DEVICE_OPTION_PREFIX = "lockstep.device.option.";
    /** The indirection threshold T in bytes: larger messages go through the heap. */
    public static final String INLINE_THRESHOLD = "lockstep.mailbox.inlineThreshold";
    /** Ring length of every pair mailbox. */
    public static final String SLOTS = "lockstep.mailbox.slots";
    /** Ring length of every receiver's asynchronous mailbox (0 disables; also off without device CAS). */
    public static final String ASYNC_SLOTS = "lockstep.mailbox.asyncSlots";
    /** Largest fragment of a long message: small enough to pipeline the two copies. */
    public static final String FRAGMENT = "lockstep.mailbox.fragment";
    /** Heap partition per sender, for indirect payloads. */
    public static final String HEAP_PER_RANK = "lockstep.mailbox.heapPerRank";
    /**
     * Messages of at least this many bytes into a receive buffer the receiver allocated from its
     * communicator (device memory) are delivered with a single copy; 0 turns single copy off.
     * Turn it off in jobs that retain messages in the device for checkpoint replay: a message
     * delivered straight into a receive buffer leaves no retained copy in the device.
     */
    public static final String SINGLE_COPY_THRESHOLD = "lockstep.mailbox.singleCopyThreshold";
    /**
     * {@code true}: a process rank logs its transport counters (copies, single-copy messages) when it
     * leaves, at INFO on the {@code System.Logger} {@code org.lockstep.pcie.mailbox.ProcessWorld}
     * (the JDK's default logging writes it to standard error).
     */
    public static final String PRINT_STATISTICS = "lockstep.mailbox.printStatistics";
    /** The compatibility kit's fault-injection hook ({@link TransportFaults#PROPERTY}); never for production. */
    public static final String FAULTS = TransportFaults.PROPERTY;
    /**
     * Job property: {@code true} makes a world of threads resume a job on a device that already
     * holds it, after a power loss of the whole machine ({@code MailboxThreadWorld.afterPowerLoss}): every rank is its
     * next incarnation and restarts from its own checkpoint. Used by the power-loss soak and the
     * conformance kit, which keep the device across the two runs.
     */
    public static final String RECOVER = "lockstep.checkpoint.recover";
    /**
     * Milliseconds a rank process on the same host may go without a heartbeat before its peers
     * take it for failed although its process exists (stopped with SIGSTOP, or wedged); 0 turns the
     * lease off (then only a process that is gone counts as failed on one host).
     */
    public static final String LIVENESS_LEASE = "lockstep.mailbox.livenessLeaseMillis";
    /** Default of {@link #LIVENESS_LEASE}: long beside a GC pause or a loaded host's scheduling delay. */
    public static final long DEFAULT_LIVENESS_LEASE_MILLIS = 5000;

    /**
     * Whether communicators use the device-native collectives of the collective area ({@code true},
     * the default) or only the point-to-point ones ({@code false}; for measuring the crossovers).
     */
    public static final String NATIVE_COLLECTIVES = "lockstep.collectives.native";
    /**
     * Which device barrier runs: {@code flags}, {@code leader}, {@code counter} (needs device CAS) or
     * {@code dissemination} (over messages); unset, the transport chooses by rank count and whether
     * the ranks share cores.
     */
    public static final String BARRIER = "lockstep.collectives.barrier";
    /**
     * Where the non-blocking barrier, broadcast and allreduce run where their blocking forms would
     * run on the device: {@code device} (the default: the same device algorithms, progressed) or
     * {@code schedules} (the point-to-point schedules every provider has; for measuring the two).
     */
    public static final String NONBLOCKING_COLLECTIVES = "lockstep.collectives.nonblocking";

    public static final String DEFAULT_DEVICE = "emulated";
    public static final int DEFAULT_INLINE_THRESHOLD = 2048;
    public static final int DEFAULT_SLOTS = 16;
    public static final int DEFAULT_ASYNC_SLOTS = 64;
    public static final long DEFAULT_HEAP_PER_RANK = 16L << 20;
    public static final long DEFAULT_FRAGMENT = 256L << 10;
    public static final long DEFAULT_SINGLE_COPY_THRESHOLD = 64L << 10;
    /** Checkpoint slot size per rank when {@link org.lockstep.api.Checkpoints#ENABLED_PROPERTY} is on and no size is given. */
    public static final long DEFAULT_CHECKPOINT_BYTES = 1L << 20;

    /** Every job property the transport reads ({@code .*}: every key under it). */
    public static final Set<String> PROPERTY_NAMES = Set.of(DEVICE, DEVICE_SIZE, DEVICE_PATH, BLOCK_SIZE, DEVICE_OPTION_PREFIX + "*",
            INLINE_THRESHOLD, SLOTS, ASYNC_SLOTS, FRAGMENT, HEAP_PER_RANK, SINGLE_COPY_THRESHOLD, PRINT_STATISTICS, FAULTS,
            NATIVE_COLLECTIVES, BARRIER, NONBLOCKING_COLLECTIVES, RestartPolicy.LOG_FULL_WAIT_PROPERTY, RECOVER,
            JobDeviceOwner.KEEP_PROPERTY, DeviceClaim.REUSE_PROPERTY, LIVENESS_LEASE,
            IdleStrategy.RANKS_ON_HOST_PROPERTY);

    private MailboxOptions() {
    }

    /**
     * Reads every property of {@code options} as a job would, so that a bad value is an
     * {@link ErrorClass#ARG} error before any rank starts (the world size included).
     */
    public static void check(JobOptions options) {
        MailboxConfig config = config(options, options.ranks(), 0);
        deviceSpec(options, config, DEFAULT_DEVICE, Optional.empty());
        if (options.longProperty(FRAGMENT, DEFAULT_FRAGMENT) < 1) {
            throw new LockstepException(ErrorClass.ARG, FRAGMENT + " must be at least 1 byte");
        }
        singleCopyThreshold(options);
        livenessLeaseNanos(options);
        TransportFaults.from(options);
        barrier(options);
        nonBlockingOnDevice(options);
        RestartPolicy.from(options);
        for (String flag : List.of(NATIVE_COLLECTIVES, PRINT_STATISTICS, JobDeviceOwner.KEEP_PROPERTY, DeviceClaim.REUSE_PROPERTY,
                RECOVER,
                org.lockstep.api.Checkpoints.ENABLED_PROPERTY, org.lockstep.api.Checkpoints.RESTART_ON_FAILURE_PROPERTY)) {
            options.property(flag).ifPresent(value -> {
                if (!value.trim().equalsIgnoreCase("true") && !value.trim().equalsIgnoreCase("false")) {
                    throw new LockstepException(ErrorClass.ARG, flag + "=" + value + " is not true or false");
                }
            });
        }
    }

    /** The mailbox shape the job properties ask for, for {@code worldSize} ranks of job {@code jobKey}. */
    static MailboxConfig config(JobOptions options, int worldSize, long jobKey) {
        MailboxConfig config = new MailboxConfig(worldSize,
                intOption(options, SLOTS, DEFAULT_SLOTS),
                intOption(options, INLINE_THRESHOLD, DEFAULT_INLINE_THRESHOLD),
                intOption(options, ASYNC_SLOTS, DEFAULT_ASYNC_SLOTS),
                options.longProperty(HEAP_PER_RANK, DEFAULT_HEAP_PER_RANK),
                jobKey).withRanksOnHost(IdleStrategy.Policy.ranksOnThisHost(options, worldSize));
        boolean checkpoints = Boolean.parseBoolean(options.property(org.lockstep.api.Checkpoints.ENABLED_PROPERTY).orElse("false"));
        return checkpoints ? config.withCheckpoints(Math.max(1,
                options.longProperty(org.lockstep.api.Checkpoints.STATE_BYTES_PROPERTY, DEFAULT_CHECKPOINT_BYTES))) : config;
    }

    /**
     * The device the job properties ask for, large enough for {@code wanted} unless a size is given;
     * {@code defaultProvider} and {@code path} apply when the properties name none.
     */
    static DeviceSpec deviceSpec(JobOptions options, MailboxConfig wanted, String defaultProvider, Optional<String> path) {
        int blockSize = intOption(options, BLOCK_SIZE, DeviceSpec.DEFAULT_BLOCK_SIZE);
        long capacity = options.longProperty(DEVICE_SIZE, new MailboxLayout(wanted, blockSize).requiredCapacity());
        Map<String, String> deviceOptions = new TreeMap<>();
        options.properties().forEach((key, value) -> {
            if (key.startsWith(DEVICE_OPTION_PREFIX)) {
                deviceOptions.put(key.substring(DEVICE_OPTION_PREFIX.length()), value);
            }
        });
        return new DeviceSpec(options.property(DEVICE).orElse(defaultProvider), capacity, blockSize,
                path.isPresent() ? path : options.property(DEVICE_PATH), deviceOptions);
    }

    /** {@code wanted} as the device can carry it: without compare-and-set there are no asynchronous mailboxes. */
    static MailboxConfig forDevice(MailboxConfig wanted, ExternalMemory device) {
        return device.has(DeviceCapability.ATOMIC_CAS) ? wanted
                : new MailboxConfig(wanted.worldSize(), wanted.slotsPerMailbox(), wanted.inlineCapacity(), 0,
                wanted.heapBytesPerRank(), wanted.jobKey(), wanted.checkpointBytesPerRank(), wanted.ranksShareCores());
    }

    /** The single-copy threshold the job properties ask for. */
    static long singleCopyThreshold(JobOptions options) {
        long value = options.longProperty(SINGLE_COPY_THRESHOLD, DEFAULT_SINGLE_COPY_THRESHOLD);
        if (value < 0) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.ARG, SINGLE_COPY_THRESHOLD + "=" + value
                    + " is negative (0 turns single copy off)");
        }
        return value;
    }

    /** The liveness lease on one host {@link #LIVENESS_LEASE} asks for, in nanoseconds (0: off). */
    static long livenessLeaseNanos(JobOptions options) {
        long millis = options.longProperty(LIVENESS_LEASE, DEFAULT_LIVENESS_LEASE_MILLIS);
        if (millis < 0 || millis > 86_400_000L) {
            throw new LockstepException(ErrorClass.ARG, LIVENESS_LEASE + "=" + millis + " is outside [0, 86400000] ms (0 turns it off)");
        }
        return millis * 1_000_000;
    }

    /** Whether the job asks for the device-native collectives (the default) or only point-to-point ones. */
    static boolean nativeCollectives(JobOptions options) {
        return options.property(NATIVE_COLLECTIVES).map(v -> !v.equalsIgnoreCase("false")).orElse(true);
    }

    /** Whether the job lets the non-blocking barrier, broadcast and allreduce run on the device ({@link #NONBLOCKING_COLLECTIVES}). */
    static boolean nonBlockingOnDevice(JobOptions options) {
        return options.property(NONBLOCKING_COLLECTIVES).map(v -> switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "device" -> true;
            case "schedules" -> false;
            default -> throw new LockstepException(ErrorClass.ARG, NONBLOCKING_COLLECTIVES + "=" + v
                    + " is neither device nor schedules");
        }).orElse(true);
    }

    /** The barrier the job asks for, or null to let the transport choose. */
    static BarrierAlgorithm barrier(JobOptions options) {
        return options.property(BARRIER).map(v -> {
            for (BarrierAlgorithm algorithm : BarrierAlgorithm.values()) {
                if (algorithm.name().equalsIgnoreCase(v.trim())) {
                    return algorithm;
                }
            }
            throw new LockstepException(ErrorClass.ARG, BARRIER + "=" + v + " names no barrier; one of "
                    + Arrays.toString(BarrierAlgorithm.values()).toLowerCase(Locale.ROOT));
        }).orElse(null);
    }

    static int intOption(JobOptions options, String key, long defaultValue) {
        long value = options.longProperty(key, defaultValue);
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new org.lockstep.api.LockstepException(org.lockstep.api.ErrorClass.ARG, key + "=" + value + " is out of range");
        }
        return (int) value;
    }
}
