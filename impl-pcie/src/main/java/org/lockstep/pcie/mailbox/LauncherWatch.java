package org.lockstep.pcie.mailbox;

import java.util.Map;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;

/**
 * This rank's launcher, when {@code lockstep run} started it ({@link LaunchEnvironment#LAUNCHER_PID}):
 * the launcher is this process's parent, so when the parent changes the launcher is gone (killed,
 * or ended) and a rank left running would run on unseen, its output lost. A rank checks it as it
 * attaches and with every heartbeat, and ends when the launcher has gone.
 */
final class LauncherWatch {
    /** Exit status of a rank that ended because its launcher had gone (as for SIGHUP). */
    static final int LAUNCHER_GONE_EXIT = 129;

    private final long launcherPid;

    private LauncherWatch(long launcherPid) {
        this.launcherPid = launcherPid;
    }

    /** The launcher that {@code env} names; none for a process that {@code lockstep run} did not start. */
    static LauncherWatch fromEnvironment(Map<String, String> env) {
        String pid = env.get(LaunchEnvironment.LAUNCHER_PID);
        if (pid == null || pid.isBlank()) {
            return new LauncherWatch(0);
        }
        try {
            return new LauncherWatch(Long.parseLong(pid.trim()));
        } catch (NumberFormatException e) {
            throw new LockstepException(ErrorClass.ARG, LaunchEnvironment.LAUNCHER_PID + " is not a process id: '" + pid + "'");
        }
    }

    /** Whether a launcher of ours started this process. */
    boolean present() {
        return launcherPid != 0;
    }

    /** Whether that launcher still runs (it is still this process's parent). */
    boolean alive() {
        return present() && ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L) == launcherPid;
    }

    /** Whether a launcher of ours started this process and has gone since. */
    boolean gone() {
        return present() && !alive();
    }

    long pid() {
        return launcherPid;
    }
}
