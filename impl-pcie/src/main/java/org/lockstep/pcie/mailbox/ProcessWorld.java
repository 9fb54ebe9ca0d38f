package org.lockstep.pcie.mailbox;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.DeviceFormat;
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
    /** The device file to remove when the last rank leaves: one an external launcher's job created by default. */
    private Optional<Path> removeWhenLast = Optional.empty();
    private final MailboxCommunicator world;
    private final Thread heartbeat;
    private volatile boolean ended;
    private boolean printStatistics;

    private ProcessWorld(ExternalMemory device, MailboxEndpoint endpoint) {
        this.device = device;
        this.endpoint = endpoint;
        this.world = MailboxCommunicator.world(endpoint);
        this.heartbeat = Thread.ofPlatform().daemon().name("lockstep-heartbeat-" + endpoint.rank()).unstarted(this::beatUntilEnded);
        endpoint.beat(1);
        heartbeat.start();
        endpoint.onClose(() -> leave(false));
    }

    /** Attaches this process as {@code launch.rank()}: formats the device or waits for its formatter. */
    public static ProcessWorld attach(JobOptions options, LaunchEnvironment launch) {
        if (options.ranks() != launch.size()) {
            throw new LockstepException(ErrorClass.ARG, "job options say " + options.ranks() + " ranks, the launcher " + launch.size());
        }
        boolean externalLauncher = !"lockstep".equals(launch.launcher());
        int hosts = LaunchEnvironment.hostCount(launch.launcher(), System.getenv());
        if (hosts > 1) {
            throw new LockstepException(ErrorClass.DEVICE, "the " + launch.launcher() + " launcher spread this job over " + hosts
                    + " hosts, but the mailbox transport needs every rank to map one device (" + launch.devicePath()
                    + " would be a different file on each host): run it with -Dlockstep.provider=hybrid (the device within "
                    + "each host, MPI between hosts) or -Dlockstep.provider=mpi");
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
            MailboxLayout layout = DeviceFormat.format(device, config, ATTACH_WAIT, launch.rank() == 0);
            long entry = layout.rankEntry(launch.rank());
            long state = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
            long launcherIncarnation = LaunchEnvironment.incarnation(System.getenv());
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
            endpoint.singleCopy().threshold(MailboxOptions.singleCopyThreshold(options));
            ProcessWorld world = new ProcessWorld(device, endpoint);
            if (externalLauncher && !System.getenv().containsKey(LaunchEnvironment.DEVICE) && launch.devicePath().startsWith("/dev/shm/")) {
                world.removeWhenLast = Optional.of(Path.of(launch.devicePath()));
            }
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
        try {
            endpoint.close();
        } finally {
            leave(true);
        }
    }

    @Override
    public void close() {
        endpoint.close();
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
        endpoint.markEnded(failed);
        if (printStatistics) {
            System.err.println("lockstep rank " + endpoint.rank() + ": " + endpoint.statistics());
        }
        device.persist(endpoint.layout().rankEntry(endpoint.rank()), RankTableDescriptor.ENTRY_LENGTH);
        boolean last = removeWhenLast.isPresent() && everyRankEnded();
        device.close();
        if (last) {
            try {
                // Two ranks ending at once may both see the other ended: removing twice is harmless.
                Files.deleteIfExists(removeWhenLast.get());
            } catch (IOException e) {
                System.err.println("lockstep rank " + endpoint.rank() + ": could not remove the device " + removeWhenLast.get() + ": " + e);
            }
        }
    }

    /**
     * Whether every rank has ended, this one's end already written: the last rank to leave a job
     * that no Lockstep launcher cleans up after removes the device file.
     */
    private boolean everyRankEnded() {
        VarHandle.fullFence(); // this rank's end is visible before the others' states are read
        for (int r = 0; r < endpoint.size(); r++) {
            long state = device.getLongAcquire(endpoint.layout().rankEntry(r) + RankTableDescriptor.STATE_OFFSET);
            if (state != RankTableDescriptor.STATE_FINISHED && state != RankTableDescriptor.STATE_FAILED) {
                return false;
            }
        }
        return true;
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
                endpoint.beat(++beat);
                endpoint.checkPeerProcesses();
            }
        }
    }
}
