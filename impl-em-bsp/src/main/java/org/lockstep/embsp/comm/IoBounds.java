package org.lockstep.embsp.comm;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The I/O bounds of the collectives, from seed 003's analysis of PEMS2 applied to the
 * algorithms of the EM-BSP collectives (n VPs in the call, context size μ, message size ω, block
 * size B; ⌈ω⌉ is ω rounded up to a multiple of B, ⌊ω⌋ rounded down). Volumes in bytes.
 *
 * <ul>
 *   <li>Swapping: each VP is swapped out and in at most once per virtual superstep, so at most
 *       2μ per VP (2·A for a VP whose allocated blocks total A ≤ μ). Alltoallv may also re-read the
 *       blocks of its send buffer that hold messages to receivers that had not yet recorded
 *       (at most μ more).</li>
 *   <li>A pull (a VP reads ω bytes from a context on disk) reads the blocks that cover them:
 *       at most ⌈ω⌉ + B.</li>
 *   <li>A push (direct delivery into a context on disk) writes the aligned interior, at most
 *       ⌊ω⌋; its unaligned ends go to the boundary-block cache, and only a fragment whose block
 *       found no room there costs a read-modify-write of that block (2B).</li>
 * </ul>
 *
 * <table>
 *   <caption>thesis-form bounds per call</caption>
 *   <tr><th>call</th><th>bound</th></tr>
 *   <tr><td>Barrier, Scan, Exscan, split</td><td>2nμ</td></tr>
 *   <tr><td>Bcast, Scatter(v), Reduce, Allreduce, Reduce_scatter</td><td>2nμ + (n−1)(⌈ω⌉ + B)</td></tr>
 *   <tr><td>Gather(v)</td><td>2nμ + (n−1)⌊ω⌋</td></tr>
 *   <tr><td>Allgather(v)</td><td>2nμ + n(n−1)/2 · (⌈ω⌉ + B + ⌊ω⌋)</td></tr>
 *   <tr><td>Alltoall(v)</td><td>3nμ + n(n−1)⌊ω⌋</td></tr>
 *   <tr><td>Alltoall(v), PEMS1's indirect area</td><td>4nμ + 2n(n−1)⌈ω⌉</td></tr>
 * </table>
 */
public final class IoBounds {
    private IoBounds() {
    }

    /** ⌈ω⌉ + B, or 0 for an empty message: what a pull of ω bytes reads at most. */
    public static long pull(long omega, long block) {
        return omega == 0 ? 0 : roundUp(omega, block) + block;
    }

    /** ⌊ω⌋: what a direct delivery of ω bytes writes at most (its aligned interior). */
    public static long push(long omega, long block) {
        return omega / block * block;
    }

    public static long roundUp(long x, long block) {
        return -Math.floorDiv(-x, block) * block;
    }

    /** Bytes of the blocks that cover {@code ranges} ([from, to) offsets), each block counted once. */
    static long coveringBlocks(List<long[]> ranges, long block) {
        List<long[]> blocks = new ArrayList<>();
        for (long[] r : ranges) {
            blocks.add(new long[] {Math.floorDiv(r[0], block) * block, roundUp(r[1], block)});
        }
        blocks.sort(Comparator.comparingLong(r -> r[0]));
        long total = 0;
        long covered = Long.MIN_VALUE;
        for (long[] r : blocks) {
            long from = Math.max(r[0], covered);
            if (r[1] > from) {
                total += r[1] - from;
            }
            covered = Math.max(covered, r[1]);
        }
        return total;
    }

    /** The thesis-form bound of {@code operation} on n VPs. */
    public static long thesis(String operation, int n, long mu, long omega, long block) {
        long swap = 2L * n * mu;
        long pairs = (long) n * (n - 1);
        return switch (operation) {
            case "barrier", "scan", "exscan", "split", "dup" -> swap;
            case "bcast", "scatter", "scatterv", "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block" ->
                    swap + (n - 1L) * pull(omega, block);
            case "gather", "gatherv" -> swap + (n - 1L) * push(omega, block);
            case "allgather", "allgatherv" -> swap + pairs / 2 * (pull(omega, block) + push(omega, block));
            case "alltoall", "alltoallv" -> 3L * n * mu + pairs * push(omega, block);
            // PEMS1: two supersteps (each VP swapped twice), every message written to the indirect area and read back
            case "alltoall-indirect", "alltoallv-indirect" -> 4L * n * mu + 2 * pairs * roundUp(omega, block);
            default -> throw new IllegalArgumentException("no bound for " + operation);
        };
    }
}
