package org.lockstep.embsp.comm;

import java.util.HashMap;
import java.util.Map;

import org.lockstep.api.LockstepException;
import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.embsp.sim.Location;

/**
 * The part of a collective call's state that real processors exchange when its group spans
 * several of them: what the frames of the others said (counters, root ready, recorded tables,
 * summaries), the pulls served from here, the running value of a reduction while it is here, the
 * messages still arriving. One per processor per call; guarded by the scheduler's lock, except
 * the fields the agent alone touches.
 */
final class SpanningState {
    /** Counters whose shares processors report when complete. */
    static final int ARRIVALS = 0;
    static final int FINISHED = 1;

    final int otherProcessors;
    /** COUNT frames received, by counter, and the counts they carried. */
    final int[] reports = new int[2];
    final long[] reported = new long[2];
    /** Set when the root's processor said the root has published. */
    final CompositeSignal remoteRootReady = new CompositeSignal();
    /** Ranks elsewhere that recorded their receive tables (RECORDED frames). */
    final boolean[] recorded;
    int recordedElsewhere;
    /** Pulls of data here that other processors made and this one has answered in full. */
    int servedPulls;
    /** Pulls waiting for the data's owner to publish it: by rank, the requests (agent). */
    final Map<Integer, java.util.List<PullService.Request>> pendingPulls = new HashMap<>();
    /** Alltoallv: per sending rank elsewhere, what it sends to each rank (SUMMARY frames), or null. */
    final long[][] summaries;
    int summariesReceived;
    /** Message bytes from elsewhere delivered into contexts here. */
    long deliveredBytes;
    /** Messages from elsewhere still arriving: (sending rank, receiving rank) to their writer (agent). */
    final Map<Long, AlignedWriter> incoming = new HashMap<>();
    /** Blocks received complete, by sending rank (Gather). */
    int completeBlocks;
    /** Reductions: whether the running value is here, and how many of its bytes have arrived. */
    boolean tokenHere;
    long tokenBytes;
    /** Allgather: where rank i's block is held here (a VP that fetched it), and who fetches it now. */
    final Location[] holders;
    final boolean[] fetching;
    final CompositeSignal fetched = new CompositeSignal();
    /** Allgather: the blocks from elsewhere that VPs here still miss, {receiving rank, block's rank}, for the fetcher. */
    final java.util.List<int[]> missing = new java.util.ArrayList<>();
    /**
     * Bcast on a processor without the root (and Allgather: the VP that delivers what others miss):
     * the rank here that fetches the root's message (-1: none yet), the ranks waiting for it with their buffers registered, in order of arrival, and
     * the ranks it has been delivered to.
     */
    int fetcher = -1;
    final java.util.List<Integer> waiting = new java.util.ArrayList<>();
    final boolean[] delivered;
    /** A failure the agent found in this call (a size mismatch): every VP of the call here fails with it. */
    LockstepException failure;

    SpanningState(int n, int otherProcessors) {
        this.otherProcessors = otherProcessors;
        this.recorded = new boolean[n];
        this.summaries = new long[n][];
        this.holders = new Location[n];
        this.fetching = new boolean[n];
        this.delivered = new boolean[n];
    }

    /** Whether every other processor reported its complete share of {@code counter}. */
    boolean allReported(int counter) {
        return reports[counter] == otherProcessors;
    }
}
