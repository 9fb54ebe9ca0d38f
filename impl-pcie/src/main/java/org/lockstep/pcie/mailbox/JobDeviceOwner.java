package org.lockstep.pcie.mailbox;

import java.lang.invoke.VarHandle;
import java.util.Map;

import org.lockstep.api.LaunchEnvironment;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.pcie.layout.SuperblockDescriptor;
import org.lockstep.pcie.mapped.MappedDevice;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Who removes a job's device file, and when. A launcher that made the file removes it itself
 * (compare-and-delete, once every rank has ended). When no launcher is left to do it (a job started
 * by {@code mpirun} or {@code srun}, or a {@code lockstep run} whose launcher was killed), the last
 * rank out removes it — but only a file made for this job and not to be kept: the superblock's
 * owner word ({@link SuperblockDescriptor#OWNER_JOB_KEY_OFFSET}) then holds the job key. A file
 * the user gave, a kept device, a DAX device or a PCI BAR is never removed.
 *
 * <p>"Last out": this rank has written its own final state, and every other rank has written its
 * own (finished or failed) or its process is gone. Each leaving rank writes its state, fences,
 * then reads the others', so of ranks leaving at once at least the last sees all the others out
 * (two may both see it; the compare-and-delete makes the second a no-op).
 */
final class JobDeviceOwner {
    /** Job property: {@code true} keeps a device file the job's ranks made (jobs not started by {@code lockstep run}). */
    static final String KEEP_PROPERTY = "lockstep.device.keep";

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final long jobKey;
    private final LauncherWatch launcher;

    JobDeviceOwner(ExternalMemory device, MailboxLayout layout, int rank, long jobKey, LauncherWatch launcher) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.jobKey = jobKey;
        this.launcher = launcher;
    }

    /**
     * Records in the superblock that the file was made for this job and is removed with it: said
     * by the launcher ({@link LaunchEnvironment#REMOVE_DEVICE}), or, without a launcher of ours, by
     * this rank having created the file and the job not asking to keep it.
     */
    void recordOwnership(Map<String, String> env, boolean keepProperty) {
        boolean ours;
        if (launcher.present()) {
            ours = Boolean.parseBoolean(env.getOrDefault(LaunchEnvironment.REMOVE_DEVICE, "false"));
        } else {
            ours = !keepProperty && device instanceof MappedDevice mapped && mapped.createdFile();
        }
        if (ours) {
            device.putLongVolatile(SuperblockDescriptor.OWNER_JOB_KEY_OFFSET, jobKey);
            device.persist(SuperblockDescriptor.OWNER_JOB_KEY_OFFSET, Long.BYTES);
        }
    }

    /**
     * Called after this rank wrote its final state: removes the device file if this rank is the
     * last one out, no launcher of ours is left to remove it, and the file is this job's to remove.
     *
     * @return whether the file was removed
     */
    boolean removeIfLastOut() {
        if (!(device instanceof MappedDevice mapped) || launcher.alive()
                || device.getLongVolatile(SuperblockDescriptor.OWNER_JOB_KEY_OFFSET) != jobKey) {
            return false;
        }
        VarHandle.fullFence(); // our state store before the reads of theirs
        for (int peer = 0; peer < layout.config().worldSize(); peer++) {
            if (peer != rank && !isOut(layout.rankEntry(peer))) {
                return false;
            }
        }
        return mapped.removeFile();
    }

    private boolean isOut(long entry) {
        long state = device.getLongVolatile(entry + RankTableDescriptor.STATE_OFFSET);
        if (state == RankTableDescriptor.STATE_FINISHED || state == RankTableDescriptor.STATE_FAILED) {
            return true;
        }
        if (state != RankTableDescriptor.STATE_RUNNING) {
            return false; // never attached: it may still be starting
        }
        long host = device.getLong(entry + RankTableDescriptor.HOST_OFFSET);
        return host != 0 && host == HostIdentity.CURRENT && !HostIdentity.isAlive(
                device.getLong(entry + RankTableDescriptor.PID_OFFSET), device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET));
    }
}
