package org.lockstep.pcie.mailbox;

import java.time.Duration;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.DeviceFormat;
import org.lockstep.pcie.layout.FormatterProcess;
import org.lockstep.pcie.layout.MailboxConfig;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * How a rank process gets its job's format on a device, beyond a blank device's race-free claim
 * ({@link DeviceFormat}):
 * <ul>
 *   <li><b>A formatter that died half way</b> ({@code IN_PROGRESS}, its process gone on this host;
 *       or, for a formatter that never said who it is or cannot be checked from here, no change
 *       for {@link #FORMAT_LEASE}) is taken over: one waiting rank wins the formatter word by
 *       compare-and-set and formats afresh. Without that, the file would be unusable for ever.</li>
 *   <li><b>A device of a job that has ended</b> (formatted, no rank process of it alive, its
 *       formatter gone) is formatted afresh for this job when the job asks for it with
 *       {@value #REUSE_PROPERTY}{@code =true} ({@code lockstep run --reuse-device}), e.g. a device kept
 *       with {@code --keep-device}. Without it the error says so. A job that still runs is never
 *       touched.</li>
 *   <li><b>An earlier run of this same job</b> (same job key, this rank's entry already used, and this
 *       process its first incarnation) is the same case: refused with the reason, reused on request.</li>
 * </ul>
 * Taking over needs device compare-and-set; without it the rank waits and fails as before.
 */
final class DeviceClaim {
    /** Job property: {@code true} formats afresh a device whose job has ended (a kept device). */
    static final String REUSE_PROPERTY = "lockstep.device.reuse";
    /** How long a format in progress whose formatter never named itself may last before it is taken over. */
    static final Duration FORMAT_LEASE = Duration.ofSeconds(10);
    private static final long POLL_NANOS = 2_000_000;

    private final ExternalMemory device;
    private final MailboxConfig config;
    private final int rank;
    private final boolean firstIncarnation;
    private final boolean reuse;
    private final FormatterProcess me = HostIdentity.currentProcess();

    DeviceClaim(ExternalMemory device, MailboxConfig config, int rank, long incarnation, boolean reuse) {
        this.device = device;
        this.config = config;
        this.rank = rank;
        this.firstIncarnation = incarnation <= 1;
        this.reuse = reuse;
    }

    /** The job's layout on the device: formatted by this rank, by another, or taken over as above; waits up to {@code wait}. */
    MailboxLayout claim(Duration wait, boolean formatterWithoutCas) {
        long deadline = System.nanoTime() + wait.toNanos();
        FormatterProcess leased = null;
        long leasedSince = 0;
        while (true) {
            long state = DeviceFormat.formatState(device);
            if (state == SuperblockDescriptor.FORMAT_BLANK) {
                if (DeviceFormat.claimBlank(device, formatterWithoutCas)) {
                    return DeviceFormat.formatClaimed(device, config, me);
                }
            } else if (state == SuperblockDescriptor.FORMAT_IN_PROGRESS) {
                FormatterProcess formatter = DeviceFormat.formatter(device);
                boolean abandoned;
                if (canJudge(formatter)) {
                    abandoned = isGone(formatter);
                } else {
                    // Not named (it may have died before it wrote its name) or not checkable here: a lease since it last changed.
                    if (!formatter.equals(leased)) {
                        leased = formatter;
                        leasedSince = System.nanoTime();
                    }
                    abandoned = System.nanoTime() - leasedSince > FORMAT_LEASE.toNanos();
                }
                if (abandoned && DeviceFormat.takeOver(device, formatter, me)) {
                    return DeviceFormat.formatClaimed(device, config, me);
                }
            } else if (state == SuperblockDescriptor.FORMAT_READY) {
                MailboxLayout layout = ready(deadline);
                if (layout != null) {
                    return layout;
                }
            } else {
                // not ours to judge: attach names what it is
                return DeviceFormat.attach(device, config.jobKey(), config.worldSize(), Duration.ZERO);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new DeviceException("device " + device.name() + " was not formatted within " + wait.toSeconds() + " s"
                        + whyUnformatted(state));
            }
            pause();
        }
    }

    private String whyUnformatted(long state) {
        if (state == SuperblockDescriptor.FORMAT_BLANK) {
            return " (it is blank; without device compare-and-set only rank 0 formats it)";
        }
        FormatterProcess formatter = DeviceFormat.formatter(device);
        if (formatter.pid() == 0) {
            return " (a formatter started but never said which process it is)";
        }
        if (formatter.host() != HostIdentity.CURRENT) {
            return " (its formatter, process " + formatter.pid() + ", runs on another host)";
        }
        return isGone(formatter) ? " (its formatter, process " + formatter.pid() + ", died half way, and without device"
                + " compare-and-set no rank can take the format over: remove or re-create the device)"
                : " (its formatter, process " + formatter.pid() + ", is still at it)";
    }

    /** A formatted device: this job's (attached), an ended job's (reused on request), or refused; null to look again. */
    private MailboxLayout ready(long deadline) {
        FormatterProcess formatter = DeviceFormat.formatter(device);
        long key = DeviceFormat.storedJobKey(device);
        boolean ours = key == config.jobKey();
        if (ours) {
            MailboxLayout layout = DeviceFormat.attach(device, config.jobKey(), config.worldSize(), remaining(deadline));
            if (!firstIncarnation || !usedByAnEndedProcess(layout.rankEntry(rank))) {
                return layout; // a restart, a fresh entry, or a live duplicate (refused when the rank attaches)
            }
        }
        String ended = endedJob();
        if (!DeviceFormat.formatter(device).equals(formatter) || DeviceFormat.formatState(device) != SuperblockDescriptor.FORMAT_READY) {
            return null; // someone is formatting it afresh right now: look again
        }
        if (ended == null) {
            if (ours) {
                throw new LockstepException(ErrorClass.RANK, "device " + device.name() + " holds a run of job 0x" + Long.toHexString(key)
                        + " in which rank " + rank + " has already taken part, and that run has not ended");
            }
            return DeviceFormat.attach(device, config.jobKey(), config.worldSize(), Duration.ZERO); // "belongs to job ..."
        }
        if (!reuse) {
            throw new DeviceException("device " + device.name() + " holds " + (ours ? "an earlier run of this job" : "job 0x"
                    + Long.toHexString(key)) + ", which has ended (" + ended + "); to format it afresh for this job use"
                    + " lockstep run --reuse-device (job property " + REUSE_PROPERTY + "=true), or remove it");
        }
        if (DeviceFormat.takeOver(device, formatter, me)) {
            return DeviceFormat.formatClaimed(device, config, me);
        }
        return null;
    }

    /**
     * Why the job the device holds has ended (every rank process of it gone, and its formatter),
     * or null if it may still run. Only what this host can check counts as gone.
     */
    private String endedJob() {
        MailboxLayout old;
        try {
            old = DeviceFormat.attach(device, DeviceFormat.storedJobKey(device), DeviceFormat.storedWorldSize(device), Duration.ZERO);
        } catch (DeviceException unreadable) {
            return null; // another layout version, or corrupt: not ours to judge
        }
        FormatterProcess formatter = DeviceFormat.formatter(device);
        if (formatter.pid() != 0 && !isGone(formatter)) {
            return null;
        }
        int finished = 0;
        for (int r = 0; r < old.config().worldSize(); r++) {
            long entry = old.rankEntry(r);
            long state = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
            if (state == RankTableDescriptor.STATE_RUNNING && !isGone(processOf(entry))) {
                return null;
            }
            finished += state == RankTableDescriptor.STATE_ABSENT ? 0 : 1;
        }
        return finished + " of its " + old.config().worldSize() + " ranks took part; no process of it is alive";
    }

    /** Whether a rank-table entry was used by a process that has ended (it finished, failed, or died running). */
    private boolean usedByAnEndedProcess(long entry) {
        long state = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
        return state == RankTableDescriptor.STATE_FINISHED || state == RankTableDescriptor.STATE_FAILED
                || (state == RankTableDescriptor.STATE_RUNNING && isGone(processOf(entry)));
    }

    private FormatterProcess processOf(long entry) {
        return new FormatterProcess(device.getLong(entry + RankTableDescriptor.PID_OFFSET),
                device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET), device.getLong(entry + RankTableDescriptor.HOST_OFFSET));
    }

    /** Whether this process can tell if {@code process} is alive: it is named and ran on this host. */
    private static boolean canJudge(FormatterProcess process) {
        return process.pid() != 0 && process.host() != 0 && process.host() == HostIdentity.CURRENT;
    }

    /** Whether the process is known gone: it ran on this host and is no longer alive. */
    private static boolean isGone(FormatterProcess process) {
        return canJudge(process) && process.pid() != ProcessHandle.current().pid()
                && !HostIdentity.isAlive(process.pid(), process.startMillis());
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static void pause() {
        try {
            Thread.sleep(Duration.ofNanos(POLL_NANOS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockstepException(ErrorClass.OTHER, "interrupted while waiting for the device to be formatted");
        }
    }
}
