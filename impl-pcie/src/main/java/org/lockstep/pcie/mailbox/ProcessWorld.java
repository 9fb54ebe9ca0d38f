package org.lockstep.pcie.mailbox;

import java.time.Duration;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.messaging.AttachedRank;

/**
 * This process as one rank of a world of separate processes that share a mapped device. Every
 * rank computes the same layout from the same job properties; the first to claim the format state
 * formats the device and the others wait for it, bounded. A daemon thread advances this rank's
 * heartbeat so that the others can tell a killed process from a slow one.
 *
 * <p>Restarts: a launcher that restarts a failed rank starts its process with
 * {@code LOCKSTEP_INCARNATION=k} (k ≥ 2). Such a process may take over a rank-table entry that
 * still says RUNNING (a process killed with SIGKILL writes nothing more) unless the process it
 * names is alive on this host; its incarnation is the device's previous one plus one, and when the
 * job checkpoints its endpoint recovers from its own last checkpoint
 * ({@link org.lockstep.api.Checkpoints}). With {@code lockstep.restartOnFailure=true} the other
 * ranks wait for it instead of failing.
 */
public final class ProcessWorld implements AttachedRank {
    /** Default device provider for separate processes: a mapped file, e.g. in {@code /dev/shm}. */
    public static final String DEFAULT_PROCESS_DEVICE = "mapped";
    private static final Duration ATTACH_WAIT = Duration.ofSeconds(30);

    private final ExternalMemory device;
    private final MailboxEndpoint endpoint;
    private final MailboxCommunicator world;
    private final Thread heartbeat;
    private final LauncherWatch launcher;
    private final JobDeviceOwner owner;
    /** Marks this rank failed if the JVM exits without leaving (System.exit, SIGTERM, SIGINT), so peers learn it at once. */
    private final Thread exitHook;
    private volatile boolean ended;
    /** Set by {@link #failed}: the endpoint's close, which leaves the world, must publish FAILED, not FINISHED. */
    private volatile boolean failing;
    private boolean printStatistics;
    private static final System.Logger LOG = System.getLogger(ProcessWorld.class.getName());

    private ProcessWorld(ExternalMemory device, MailboxEndpoint endpoint, LauncherWatch launcher, JobDeviceOwner owner) {
        this.device = device;
        this.endpoint = endpoint;
        this.launcher = launcher;
        this.owner = owner;
        this.world = MailboxCommunicator.world(endpoint);
        this.heartbeat = Thread.ofPlatform().daemon().name("lockstep-heartbeat-" + endpoint.rank()).unstarted(this::beatUntilEnded);
        this.exitHook = Thread.ofPlatform().unstarted(() -> leave(true));
        Runtime.getRuntime().addShutdownHook(exitHook);
        endpoint.lifecycle().beat(1);
        heartbeat.start();
        endpoint.lifecycle().onClose(() -> leave(failing));
    }

    /** Attaches this process as {@code launch.rank()}: formats the device or waits for its formatter. */
    public static ProcessWorld attach(JobOptions options, LaunchEnvironment launch) {
        if (options.ranks() != launch.size()) {
            throw new LockstepException(ErrorClass.ARG, "job options say " + options.ranks() + " ranks, the launcher " + launch.size());
        }
        int hosts = LaunchEnvironment.hostCount(launch.launcher(), System.getenv());
        if (hosts > 1) {
            throw new LockstepException(ErrorClass.DEVICE, "the " + launch.launcher() + " launcher spread this job over " + hosts
                    + " hosts, but the mailbox transport needs every rank to map one device (" + launch.devicePath()
                    + " would be a different file on each host): run it with -Dlockstep.provider=hybrid (the device within "
                    + "each host, MPI between hosts) or -Dlockstep.provider=mpi");
        }
        LauncherWatch launcher = LauncherWatch.fromEnvironment(System.getenv());
        if (launcher.gone()) {
            throw new LockstepException(ErrorClass.OTHER, "rank " + launch.rank() + ": its launcher (process "
                    + launcher.pid() + ") has gone; the rank does not run on without it");
        }
        MailboxConfig wanted = MailboxOptions.config(options, launch.size(), launch.jobKey());
        DeviceSpec spec = MailboxOptions.deviceSpec(options, wanted, DEFAULT_PROCESS_DEVICE, Optional.of(launch.devicePath()));
        ExternalMemory device = DeviceProviders.open(spec);
        try {
            if (!device.has(DeviceCapability.CROSS_PROCESS)) {
                throw new LockstepException(ErrorClass.DEVICE, "device provider " + spec.provider()
                        + " cannot share a device between processes; use " + DEFAULT_PROCESS_DEVICE);
            }
            MailboxConfig config = MailboxOptions.forDevice(wanted, device);
            long launcherIncarnation = LaunchEnvironment.incarnation(System.getenv());
            boolean reuse = Boolean.parseBoolean(options.property(DeviceClaim.REUSE_PROPERTY).orElse("false"));
            MailboxLayout layout = new DeviceClaim(device, config, launch.rank(), launcherIncarnation, reuse)
                    .claim(ATTACH_WAIT, launch.rank() == 0);
            long entry = layout.rankEntry(launch.rank());
            long state = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
            // A process killed with SIGKILL leaves its entry RUNNING: a launcher that restarts it says so.
            if (state == RankTableDescriptor.STATE_RUNNING && (launcherIncarnation <= 1 || predecessorAlive(device, entry))) {
                throw new LockstepException(ErrorClass.RANK, "rank " + launch.rank() + " of job 0x"
                        + Long.toHexString(launch.jobKey()) + " is already attached to " + launch.devicePath());
            }
            long incarnation = device.getLong(entry + RankTableDescriptor.INCARNATION_OFFSET) + 1;
            MailboxEndpoint endpoint = new MailboxEndpoint(device, layout, launch.rank(), incarnation,
                    options.longProperty(MailboxOptions.FRAGMENT, MailboxOptions.DEFAULT_FRAGMENT), RestartPolicy.from(options));
            endpoint.collectiveSettings().useDevice(MailboxOptions.nativeCollectives(options));
            endpoint.collectiveSettings().requestBarrier(MailboxOptions.barrier(options));
            endpoint.collectiveSettings().nonBlockingOnDevice(MailboxOptions.nonBlockingOnDevice(options));
            endpoint.singleCopy().threshold(MailboxOptions.singleCopyThreshold(options));
            endpoint.lifecycle().livenessLease(MailboxOptions.livenessLeaseNanos(options));
            JobDeviceOwner owner = new JobDeviceOwner(device, layout, launch.rank(), launch.jobKey(), launcher);
            owner.recordOwnership(System.getenv(), Boolean.parseBoolean(options.property(JobDeviceOwner.KEEP_PROPERTY).orElse("false")));
            ProcessWorld world = new ProcessWorld(device, endpoint, launcher, owner);
            world.printStatistics = Boolean.parseBoolean(options.property(MailboxOptions.PRINT_STATISTICS).orElse("false"));
            return world;
        } catch (RuntimeException e) {
            device.close();
            throw e;
        }
    }

    /** Whether the process a rank-table entry names still runs on this host (a restart must not take over a live rank). */
    private static boolean predecessorAlive(ExternalMemory device, long entry) {
        long host = device.getLong(entry + RankTableDescriptor.HOST_OFFSET);
        long pid = device.getLong(entry + RankTableDescriptor.PID_OFFSET);
        return host == HostIdentity.CURRENT && pid != ProcessHandle.current().pid()
                && HostIdentity.isAlive(pid, device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET));
    }

    @Override
    public Communicator communicator() {
        return world;
    }

    @Override
    public void failed(Throwable cause) {
        // The endpoint first: closing it writes to the device (its buffers are given back), which leave() closes.
        failing = true;
        try {
            endpoint.lifecycle().close();
        } finally {
            leave(true);
        }
    }

    @Override
    public void close() {
        endpoint.lifecycle().close();
    }

    private synchronized void leave(boolean failed) {
        if (ended) {
            return;
        }
        ended = true;
        heartbeat.interrupt();
        try {
            // The heartbeat must not touch the device after it is closed.
            heartbeat.join(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        endpoint.lifecycle().markEnded(failed);
        if (printStatistics) {
            LOG.log(System.Logger.Level.INFO, "lockstep rank {0}: {1}", endpoint.rank(), endpoint.statistics());
        }
        device.persist(endpoint.layout().rankEntry(endpoint.rank()), RankTableDescriptor.ENTRY_LENGTH);
        try {
            owner.removeIfLastOut();
        } finally {
            device.close();
            if (Thread.currentThread() != exitHook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(exitHook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs and finds the rank ended
                }
            }
        }
    }

    private void beatUntilEnded() {
        long beat = 1;
        while (!ended) {
            try {
                Thread.sleep(Duration.ofNanos(PeerWatch.HEARTBEAT_INTERVAL_NANOS));
            } catch (InterruptedException e) {
                return;
            }
            if (!ended) {
                endpoint.lifecycle().beat(++beat);
                endpoint.lifecycle().checkPeerProcesses();
                if (launcher.gone()) {
                    endWithLauncher();
                    return;
                }
            }
        }
    }

    /** The launcher has gone: this rank fails (its peers see it at once), and the process ends rather than run on unseen. */
    private void endWithLauncher() {
        LOG.log(System.Logger.Level.WARNING, "lockstep rank {0}: the launcher (process {1}) has gone; ending this rank",
                endpoint.rank(), Long.toString(launcher.pid()));
        Thread.ofPlatform().daemon().start(() -> {
            try {
                leave(true);
            } finally {
                Runtime.getRuntime().halt(LauncherWatch.LAUNCHER_GONE_EXIT);
            }
        });
    }
}
