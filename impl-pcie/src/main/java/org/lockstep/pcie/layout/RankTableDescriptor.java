package org.lockstep.pcie.layout;

/**
 * One entry per rank, each on its own cache line and written only by that rank (or by the
 * launcher on its behalf), read by every rank to tell whether a peer lives.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     incarnation (8)                           |  0
 *  +---------------------------------------------------------------+
 *  |                     state (8): ABSENT, RUNNING, FINISHED, FAILED |  8
 *  +---------------------------------------------------------------+
 *  |                     heartbeat (8), advanced while alive       | 16
 *  +---------------------------------------------------------------+
 *  |                     process id (8)                            | 24
 *  +---------------------------------------------------------------+
 *  |                     process start time (8), ms since epoch    | 32
 *  +---------------------------------------------------------------+
 *  |                     host identity (8): boot id + pid namespace | 40
 *  +---------------------------------------------------------------+
 *  |                     device buffer bytes (8) this rank holds   | 48
 *  +---------------------------------------------------------------+
 *  |                     ... padding to 64 bytes ...               |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The incarnation tells a restarted process from its predecessor (a PID alone cannot: every
 * container's first process is PID 1). A peer on the same host and in the same PID namespace
 * (equal host identity) checks liveness by process id and start time — a killed process is seen
 * at once and a slow one is never taken for dead; a peer elsewhere falls back to the heartbeat.
 */
public final class RankTableDescriptor {
    public static final int INCARNATION_OFFSET = 0;
    public static final int STATE_OFFSET = 8;
    public static final int HEARTBEAT_OFFSET = 16;
    public static final int PID_OFFSET = 24;
    public static final int PROCESS_START_OFFSET = 32;
    public static final int HOST_OFFSET = 40;
    /**
     * Bytes of device memory the rank's program holds as buffers (communicator allocate). While
     * it is 0 no receive buffer of the rank can be device-resident, so senders skip the
     * single-copy rendezvous and its round trip.
     */
    public static final int DEVICE_BUFFER_BYTES_OFFSET = 48;
    public static final int ENTRY_LENGTH = LayoutConstants.CACHE_LINE;

    public static final long STATE_ABSENT = 0;
    public static final long STATE_RUNNING = 1;
    /** The rank's program returned: it sends nothing more, but what it sent is still delivered. */
    public static final long STATE_FINISHED = 2;
    /** The rank died or threw: operations that involve it fail. */
    public static final long STATE_FAILED = 3;

    private RankTableDescriptor() {
    }
}
