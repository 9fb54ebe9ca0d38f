package org.lockstep.spi.topology;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.DistGraphCommunicator.Neighbors;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The edges of a distributed graph as each rank holds them ({@link Neighbors}): checked as given
 * ({@code MPI_Dist_graph_create_adjacent}), or gathered from edges any rank may name
 * ({@code MPI_Dist_graph_create}).
 */
public final class DistGraphEdges {
    /** What one named edge tells the rank it is sent to: an edge into it, or an edge out of it. */
    private static final int INTO = 0;
    private static final int OUT_OF = 1;
    /** Ints per edge record: direction, the other end, weight. */
    private static final int RECORD = 3;

    private DistGraphEdges() {
    }

    /** The edges each rank names for itself, checked against a communicator of {@code size} ranks. */
    public static Neighbors adjacent(int size, int[] sources, int[] sourceWeights, int[] destinations, int[] destinationWeights) {
        if (sources == null || destinations == null) {
            throw new LockstepException(ErrorClass.ARG, "sources and destinations must not be null (empty arrays for no edges)");
        }
        checkRanks(sources, size, "source");
        checkRanks(destinations, size, "destination");
        checkWeights(sourceWeights, sources.length, "source");
        checkWeights(destinationWeights, destinations.length, "destination");
        if ((sourceWeights == null) != (destinationWeights == null)) {
            throw new LockstepException(ErrorClass.ARG, "either both sides carry weights or neither does");
        }
        return new Neighbors(sources.clone(), copy(sourceWeights), destinations.clone(), copy(destinationWeights));
    }

    /**
     * The edges named anywhere, delivered to their ends over {@code parent} (an alltoall of counts
     * and an alltoallv of edge records); collective. Each rank's neighbours come ordered by the rank
     * that named the edge, then as that rank named them.
     */
    public static Neighbors gathered(Communicator parent, int[] sources, int[] degrees, int[] destinations, int[] weights) {
        int size = parent.size();
        if (sources == null || degrees == null || destinations == null || sources.length != degrees.length) {
            throw new LockstepException(ErrorClass.ARG, "createDistGraph needs sources and degrees of one length and destinations");
        }
        checkRanks(sources, size, "source");
        checkRanks(destinations, size, "destination");
        long edges = 0;
        for (int d : degrees) {
            if (d < 0) {
                throw new LockstepException(ErrorClass.ARG, "a degree cannot be negative: " + d);
            }
            edges += d;
        }
        if (edges != destinations.length) {
            throw new LockstepException(ErrorClass.ARG, "the degrees add up to " + edges + " edges but " + destinations.length
                    + " destinations are given");
        }
        checkWeights(weights, destinations.length, "edge");
        int[][] records = new int[size][];
        int[] filled = new int[size];
        int[] counts = new int[size];
        for (int i = 0, e = 0; i < sources.length; i++) {
            for (int k = 0; k < degrees[i]; k++, e++) {
                counts[sources[i]] += RECORD;
                counts[destinations[e]] += RECORD;
            }
        }
        for (int r = 0; r < size; r++) {
            records[r] = new int[counts[r]];
        }
        for (int i = 0, e = 0; i < sources.length; i++) {
            for (int k = 0; k < degrees[i]; k++, e++) {
                int w = weights == null ? 0 : weights[e];
                append(records, filled, sources[i], OUT_OF, destinations[e], w);
                append(records, filled, destinations[e], INTO, sources[i], w);
            }
        }
        int[] incoming = new int[size];
        parent.alltoall(MemorySegment.ofArray(counts), 1, Datatype.INT, MemorySegment.ofArray(incoming));
        long[] sendCounts = new long[size];
        long[] sendDispls = new long[size];
        long[] recvCounts = new long[size];
        long[] recvDispls = new long[size];
        int[] packed = new int[Arrays.stream(counts).sum()];
        int at = 0;
        for (int r = 0; r < size; r++) {
            sendCounts[r] = counts[r];
            sendDispls[r] = at;
            System.arraycopy(records[r], 0, packed, at, counts[r]);
            at += counts[r];
        }
        long total = 0;
        for (int r = 0; r < size; r++) {
            recvCounts[r] = incoming[r];
            recvDispls[r] = total;
            total += incoming[r];
        }
        int[] received = new int[Math.toIntExact(total)];
        parent.alltoallv(MemorySegment.ofArray(packed), sendCounts, sendDispls, Datatype.INT, MemorySegment.ofArray(received), recvCounts,
                recvDispls);
        return fromRecords(received, weights != null);
    }

    private static void append(int[][] records, int[] filled, int to, int direction, int other, int weight) {
        int[] r = records[to];
        int at = filled[to];
        r[at] = direction;
        r[at + 1] = other;
        r[at + 2] = weight;
        filled[to] = at + RECORD;
    }

    private static Neighbors fromRecords(int[] received, boolean weighted) {
        int in = 0;
        for (int i = 0; i < received.length; i += RECORD) {
            in += received[i] == INTO ? 1 : 0;
        }
        int out = received.length / RECORD - in;
        int[] sources = new int[in];
        int[] sourceWeights = new int[in];
        int[] destinations = new int[out];
        int[] destinationWeights = new int[out];
        int s = 0;
        int d = 0;
        for (int i = 0; i < received.length; i += RECORD) {
            if (received[i] == INTO) {
                sources[s] = received[i + 1];
                sourceWeights[s++] = received[i + 2];
            } else {
                destinations[d] = received[i + 1];
                destinationWeights[d++] = received[i + 2];
            }
        }
        return new Neighbors(sources, weighted ? sourceWeights : null, destinations, weighted ? destinationWeights : null);
    }

    private static void checkRanks(int[] ranks, int size, String what) {
        for (int r : ranks) {
            if (r < 0 || r >= size) {
                throw new LockstepException(ErrorClass.RANK, what + " rank " + r + " is outside the communicator of " + size + " ranks");
            }
        }
    }

    private static void checkWeights(int[] weights, int edges, String what) {
        if (weights == null) {
            return;
        }
        if (weights.length != edges) {
            throw new LockstepException(ErrorClass.ARG, edges + " " + what + " edges but " + weights.length + " weights");
        }
        for (int w : weights) {
            if (w < 0) {
                throw new LockstepException(ErrorClass.ARG, "an edge weight cannot be negative: " + w);
            }
        }
    }

    private static int[] copy(int[] a) {
        return a == null ? null : a.clone();
    }
}
