package org.lockstep.pcie.mailbox;

import java.util.Optional;

import java.util.concurrent.atomic.AtomicIntegerArray;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.ProcessFailedException;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The peer watch of one rank: its own liveness in the rank table (state, incarnation, process,
 * heartbeat) and what it knows of every peer's — running, failed or finished, by the rank table,
 * by process id on this host (and, where a heartbeat thread checks, a liveness lease there too, for
 * a process that exists but stopped beating), by heartbeat lease on another, and, when the job restarts failed
 * ranks, whether a new incarnation came back within the restart timeout. The transport asks it
 * before it waits on a peer and fails the requests on a peer it reports gone.
 *
 * <p>Used under the endpoint's lock, except {@link #checkPeerProcesses} and {@link #beat} (the
 * process's heartbeat thread) and {@link #markEnded}.
 */
final class PeerWatch {
    /** How often a process advances its heartbeat word. */
    static final long HEARTBEAT_INTERVAL_NANOS = 50_000_000;
    /**
     * A running peer on another host whose heartbeat has not moved for this long is taken for dead.
     * Peers on this host are checked by process id instead, which has no false positives.
     */
    static final long HEARTBEAT_LEASE_NANOS = 1_000_000_000;
    /** How often a peer on this host is checked by process id. */
    private static final long PROCESS_CHECK_NANOS = 50_000_000;
    /** Least time between two reads of the rank table. */
    private static final long PEER_CHECK_NANOS = 1_000_000;

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final RestartPolicy restartPolicy;
    /** Per peer: the state last read from the rank table, with failures seen otherwise folded in. */
    private final long[] state;
    private final long[] heartbeat;
    private final long[] heartbeatSeenAt;
    private final long[] processCheckedAt;
    /** Peers found dead by this rank (a process check or an expired lease); never revived but by a new incarnation. */
    private final boolean[] declaredDead;
    /** Peers on this host whose process a {@link #checkPeerProcesses} call found gone (1); written by the checking thread. */
    private final AtomicIntegerArray processGone;
    /** Peers on this host that the checking thread found alive but not beating for the liveness lease (1). */
    private final AtomicIntegerArray stalled;
    /** Whether another thread checks the peers' processes, so that the rank's waits never do. */
    private volatile boolean processesCheckedElsewhere;
    /**
     * How long a peer on this host may go without a heartbeat before it counts as failed though its
     * process exists (stopped with SIGSTOP, or wedged); 0: no lease on this host.
     */
    private volatile long livenessLeaseNanos;
    // Used by the checking thread only: per peer, the process watched and its heartbeat, last seen moving when.
    private final long[] watchedPid;
    /** Per peer: its process once found alive by id and start time (null until then); checked by handle after that. */
    private final ProcessHandle[] watchedProcess;
    private final long[] watchedBeat;
    private final long[] watchedBeatSince;
    /** Per peer: the incarnation last seen in the rank table, and since when it has been dead (0: alive). */
    private final long[] incarnation;
    private final long[] deadSince;
    private boolean anyGone;
    private long lastCheck = System.nanoTime();

    PeerWatch(ExternalMemory device, MailboxLayout layout, int rank, RestartPolicy restartPolicy) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.restartPolicy = restartPolicy;
        state = new long[size];
        heartbeat = new long[size];
        heartbeatSeenAt = new long[size];
        processCheckedAt = new long[size];
        declaredDead = new boolean[size];
        processGone = new AtomicIntegerArray(size);
        stalled = new AtomicIntegerArray(size);
        watchedPid = new long[size];
        watchedProcess = new ProcessHandle[size];
        watchedBeat = new long[size];
        watchedBeatSince = new long[size];
        incarnation = new long[size];
        deadSince = new long[size];
    }

    /** Enters this incarnation of the rank in the rank table, running. */
    void register(long ownIncarnation) {
        long entry = layout.rankEntry(rank);
        device.putLong(entry + RankTableDescriptor.INCARNATION_OFFSET, ownIncarnation);
        device.putLong(entry + RankTableDescriptor.PID_OFFSET, ProcessHandle.current().pid());
        device.putLong(entry + RankTableDescriptor.PROCESS_START_OFFSET, HostIdentity.currentStartMillis());
        device.putLong(entry + RankTableDescriptor.HOST_OFFSET, HostIdentity.CURRENT);
        device.putLong(entry + RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET, 0);
        device.putLongRelease(entry + RankTableDescriptor.STATE_OFFSET, RankTableDescriptor.STATE_RUNNING);
    }

    /** This rank's program has ended (normally or not); tells the others through the rank table. */
    void markEnded(boolean failed) {
        device.putLongRelease(layout.rankEntry(rank) + RankTableDescriptor.STATE_OFFSET,
                failed ? RankTableDescriptor.STATE_FAILED : RankTableDescriptor.STATE_FINISHED);
    }

    /** Advances this rank's heartbeat word; called by the process's heartbeat thread. */
    void beat(long beat) {
        device.putLongRelease(layout.rankEntry(rank) + RankTableDescriptor.HEARTBEAT_OFFSET, beat);
    }

    /** Whether the rank table is due for another read (at most one per {@link #PEER_CHECK_NANOS}). */
    boolean checkDue() {
        long now = System.nanoTime();
        if (now - lastCheck > PEER_CHECK_NANOS) {
            lastCheck = now;
            return true;
        }
        return false;
    }

    /**
     * Reads the rank table. A peer that says it runs but whose process is gone, or whose heartbeat
     * has stood still for the lease, is taken for dead: a process killed with SIGKILL writes
     * nothing more. Returns whether some peer is newly gone.
     */
    boolean check(long now) {
        boolean changed = false;
        for (int peer = 0; peer < size; peer++) {
            if (peer == rank) {
                continue;
            }
            long entry = layout.rankEntry(peer);
            long seen = device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET);
            if (!isKnownState(seen)) {
                seen = RankTableDescriptor.STATE_FAILED; // a corrupt entry cannot say its rank lives: wait for nothing from it
            }
            if (restartPolicy.restartOnFailure()) {
                long attached = device.getLongAcquire(entry + RankTableDescriptor.INCARNATION_OFFSET);
                if (attached > incarnation[peer]) {
                    // A new incarnation attached: whatever its predecessor did, it is alive now.
                    incarnation[peer] = attached;
                    declaredDead[peer] = false;
                    deadSince[peer] = 0;
                    heartbeatSeenAt[peer] = 0;
                }
            }
            if (seen == RankTableDescriptor.STATE_RUNNING && (declaredDead[peer] || isSilentlyDead(peer, entry, now))) {
                declaredDead[peer] = true;
                seen = RankTableDescriptor.STATE_FAILED;
            }
            if (seen == RankTableDescriptor.STATE_FAILED && restartPolicy.restartOnFailure()) {
                // The launcher restarts it: wait for its next incarnation, bounded.
                if (deadSince[peer] == 0) {
                    deadSince[peer] = now;
                }
                if (now - deadSince[peer] < restartPolicy.restartTimeout().toNanos()) {
                    seen = RankTableDescriptor.STATE_RUNNING;
                }
            }
            if (seen != state[peer]) {
                state[peer] = seen;
                changed |= isGoneState(seen);
            }
        }
        return changed;
    }

    /** Some peer has been seen gone (set by the endpoint once it has acted on a change). */
    void noteAnyGone() {
        anyGone = true;
    }

    /** Whether any peer has been seen gone since this rank started. */
    boolean anyGone() {
        return anyGone;
    }

    /**
     * Checks whether the processes of the running peers on this host still exist. That is a few
     * reads of /proc per peer — up to milliseconds on a loaded host, measured as multi-millisecond
     * stalls of collectives when a rank's own wait did it — so a process's heartbeat thread calls
     * this, and the rank's progress only reads the result.
     */
    void checkPeerProcesses() {
        processesCheckedElsewhere = true;
        long self = ProcessHandle.current().pid();
        long now = System.nanoTime();
        for (int peer = 0; peer < size; peer++) {
            long entry = layout.rankEntry(peer);
            if (peer == rank || device.getLongAcquire(entry + RankTableDescriptor.STATE_OFFSET) != RankTableDescriptor.STATE_RUNNING
                    || device.getLong(entry + RankTableDescriptor.HOST_OFFSET) != HostIdentity.CURRENT || HostIdentity.CURRENT == 0) {
                continue;
            }
            long pid = device.getLong(entry + RankTableDescriptor.PID_OFFSET);
            if (pid != watchedPid[peer]) { // a new process (a restart): judge it afresh
                watchedPid[peer] = pid;
                watchedProcess[peer] = null;
                watchedBeatSince[peer] = 0;
                stalled.set(peer, 0);
                processGone.set(peer, 0);
            }
            if (processGone.get(peer) == 1 || pid == self) {
                continue;
            }
            if (!watchedAlive(peer, pid, device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET))) {
                processGone.set(peer, 1);
            } else if (livenessLeaseNanos > 0 && notBeating(peer, entry, now)) {
                stalled.set(peer, 1);
                processGone.set(peer, 1);
            }
        }
    }

    /**
     * Whether the peer's process runs: the first time by id and start time, then through the handle
     * found then, which notices a reused id by itself ({@link HostIdentity#stillAlive}). Every 50 ms
     * for every peer, the full check read four or five /proc files a peer; the handle's reads two.
     */
    private boolean watchedAlive(int peer, long pid, long startMillis) {
        ProcessHandle process = watchedProcess[peer];
        if (process != null) {
            return HostIdentity.stillAlive(process);
        }
        Optional<ProcessHandle> found = HostIdentity.running(pid, startMillis);
        watchedProcess[peer] = found.orElse(null);
        return found.isPresent();
    }

    /** Whether the peer's heartbeat word has stood still for the liveness lease (its process being alive). */
    private boolean notBeating(int peer, long entry, long now) {
        long beat = device.getLongAcquire(entry + RankTableDescriptor.HEARTBEAT_OFFSET);
        if (beat != watchedBeat[peer] || watchedBeatSince[peer] == 0) {
            watchedBeat[peer] = beat;
            watchedBeatSince[peer] = now;
            return false;
        }
        return now - watchedBeatSince[peer] > livenessLeaseNanos;
    }

    /**
     * Sets the liveness lease on this host: a peer whose process exists but whose heartbeat stands
     * still this long (it was stopped, or is wedged) counts as failed. Only where a heartbeat thread
     * checks the peers ({@link #checkPeerProcesses}); 0 turns it off.
     */
    void livenessLease(long nanos) {
        livenessLeaseNanos = nanos;
    }

    /** A running peer that died without saying so: by process check on this host, by heartbeat lease elsewhere. */
    private boolean isSilentlyDead(int peer, long entry, long now) {
        long host = device.getLong(entry + RankTableDescriptor.HOST_OFFSET);
        if (host != 0 && host == HostIdentity.CURRENT) {
            if (processesCheckedElsewhere) {
                return processGone.get(peer) == 1;
            }
            if (now - processCheckedAt[peer] < PROCESS_CHECK_NANOS) {
                return false;
            }
            processCheckedAt[peer] = now;
            long pid = device.getLong(entry + RankTableDescriptor.PID_OFFSET);
            return pid != ProcessHandle.current().pid()
                    && !HostIdentity.isAlive(pid, device.getLong(entry + RankTableDescriptor.PROCESS_START_OFFSET));
        }
        long beat = device.getLongAcquire(entry + RankTableDescriptor.HEARTBEAT_OFFSET);
        if (beat != heartbeat[peer] || heartbeatSeenAt[peer] == 0) {
            heartbeat[peer] = beat;
            heartbeatSeenAt[peer] = now;
            return false;
        }
        return beat != 0 && now - heartbeatSeenAt[peer] > HEARTBEAT_LEASE_NANOS;
    }

    /** Whether {@code state} is one a rank writes; any other value in the state word is corruption. */
    private static boolean isKnownState(long state) {
        return state >= RankTableDescriptor.STATE_ABSENT && state <= RankTableDescriptor.STATE_FAILED;
    }

    private static boolean isGoneState(long state) {
        return state == RankTableDescriptor.STATE_FAILED || state == RankTableDescriptor.STATE_FINISHED;
    }

    /** Whether world rank {@code peer} (not this rank) is known to have failed or finished. */
    boolean isGone(int peer) {
        return peer != rank && isGoneState(state[peer]);
    }

    /** Whether world rank {@code peer} has finished its program (not failed). */
    boolean hasFinished(int peer) {
        return peer != rank && state[peer] == RankTableDescriptor.STATE_FINISHED;
    }

    /** Whether every member of {@code group} but this rank has failed or finished (no one is left to send). */
    boolean everyPeerGone(Group group) {
        int members = 0;
        for (int i = 0; i < group.size(); i++) {
            int peer = group.worldRank(i);
            if (peer == rank) {
                continue;
            }
            members++;
            if (!isGoneState(state[peer])) {
                return false;
            }
        }
        return members > 0;
    }

    /** Whether a receive posted from {@code source} (a world rank or ANY_SOURCE) in {@code group} can never match. */
    boolean receiveDoomed(int source, Group group) {
        return source == Communicator.ANY_SOURCE ? everyPeerGone(group) : isGoneState(state[source]);
    }

    /**
     * Throws at once if an operation involves a peer already known to be gone. Receives call it
     * only after arrivals were drained and nothing matched, so no message that could still match is lost.
     */
    void failIfGone(int peer, Group group, String what) {
        if (peer == Communicator.ANY_SOURCE) {
            if (everyPeerGone(group)) {
                throw error(Communicator.ANY_SOURCE, what);
            }
        } else if (peer != rank && peer >= 0 && isGoneState(state[peer])) {
            throw error(peer, what);
        }
    }

    /** The error of an operation ({@code what}, e.g. "send to") on {@code peer}, which is gone. */
    ProcessFailedException error(int peer, String what) {
        if (peer == Communicator.ANY_SOURCE) {
            return new ProcessFailedException(ErrorClass.PROC_FAILED_PENDING, -1, "rank " + rank + ": " + what
                    + " ANY_SOURCE cannot complete: every other rank has failed or finished");
        }
        boolean failed = state[peer] == RankTableDescriptor.STATE_FAILED;
        long stateWord = device.getLongAcquire(layout.rankEntry(peer) + RankTableDescriptor.STATE_OFFSET);
        String why = stalled.get(peer) == 1 ? " has failed: it stopped responding (no heartbeat for "
                + livenessLeaseNanos / 1_000_000 + " ms, its process stopped or wedged)"
                : isKnownState(stateWord) ? " has failed"
                : " is taken for failed: its rank-table entry on device " + device.name() + " is corrupt (state 0x"
                + Long.toHexString(stateWord) + ")";
        return new ProcessFailedException(ErrorClass.PROC_FAILED, peer, "rank " + rank + ": " + what + " rank " + peer
                + " cannot complete: rank " + peer + (failed ? why : " has finished its program"));
    }
}
