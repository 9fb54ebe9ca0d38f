package org.lockstep.spi.collective;

import static org.lockstep.spi.collective.BroadcastSchedules.absolute;
import static org.lockstep.spi.collective.BroadcastSchedules.relative;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

/**
 * Schedules of the collectives that combine: reduce, allreduce, reduce-scatter, scan, exscan.
 *
 * <p>Every combination here puts the partial result of the lower ranks on the left
 * ({@link Op#apply}'s {@code in}), whatever the operation, so non-commutative operations see rank
 * order and the bracketing depends only on the algorithm and the rank count, never on timing.
 * That is also why allreduce is bit-identical on every rank: with recursive doubling both partners
 * of a step compute {@code lower ∘ upper} from the same bits, and with reduce-scatter + allgather
 * every element is combined once, by one rank, and then copied.
 */
final class ReductionSchedules {
    private ReductionSchedules() {
    }

    private static boolean inPlace(MemorySegment segment) {
        return segment == Communicator.IN_PLACE;
    }

    /**
     * {@code acc = partner ∘ acc} if the partner's ranks are the lower ones, else
     * {@code acc = acc ∘ partner} ({@code received} is then used as scratch).
     */
    private static void combine(Schedule s, Op op, Datatype type, boolean partnerIsLower, MemorySegment received,
                                MemorySegment acc) {
        if (partnerIsLower) {
            s.reduce(op, type, received, acc);
        } else {
            s.reduce(op, type, acc, received);
            s.copy(received, acc);
        }
    }

    private static MemorySegment elements(MemorySegment segment, long from, long to, long elementSize) {
        return Buffers.slice(segment, from * elementSize, (to - from) * elementSize);
    }

    // ---------------------------------------------------------------- reduce

    /**
     * Binomial reduce: rank v receives the partial results of its children v + 1, v + 2, v + 4, …
     * in that order, appends each on the right, and sends its own up. A commutative operation uses
     * the tree rooted at the root; a non-commutative one the tree rooted at rank 0 (whose groups
     * are contiguous in rank order), and rank 0 then sends the result to the root.
     */
    static void reduceBinomial(Schedule s, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                               int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long n = count * type.size();
        MemorySegment input = inPlace(send) ? Buffers.slice(recv, 0, n) : Buffers.slice(send, 0, n);
        if (p == 1) {
            if (!inPlace(send)) {
                s.copy(input, Buffers.slice(recv, 0, n));
            }
            return;
        }
        int treeRoot = op.isCommutative() ? root : 0;
        int vr = relative(r, treeRoot, p);
        MemorySegment acc = input;
        MemorySegment received = null;
        int mask = 1;
        for (; mask < p; mask <<= 1) {
            if ((vr & mask) != 0) {
                break;
            }
            int child = vr + mask;
            if (child >= p) {
                continue;
            }
            if (received == null) {
                acc = s.scratch(n);
                s.copy(input, acc);
                received = s.scratch(n);
            }
            s.recv(absolute(child, treeRoot, p), received, 0);
            s.endRound();
            combine(s, op, type, false, received, acc);
        }
        if (vr != 0) {
            s.send(absolute(vr - mask, treeRoot, p), acc, 0);
        } else if (r == root) {
            s.copy(acc, Buffers.slice(recv, 0, n));
        } else {
            s.send(root, acc, 1);
        }
        s.endRound();
        if (r == root && treeRoot != root) {
            // a round of its own: with IN_PLACE the root's contribution went from this very buffer
            s.recv(treeRoot, Buffers.slice(recv, 0, n), 1);
            s.endRound();
        }
    }

    /**
     * Rabenseifner's reduce: reduce-scatter by recursive halving (each new rank ends with one
     * combined block of about count/2<sup>k</sup> elements), then every block goes straight to the root.
     */
    static void reduceScatterGather(Schedule s, MemorySegment send, MemorySegment recv, long count, Datatype type,
                                    Op op, int root) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long size = type.size();
        long n = count * size;
        MemorySegment input = inPlace(send) ? Buffers.slice(recv, 0, n) : Buffers.slice(send, 0, n);
        FoldedRanks folded = FoldedRanks.of(p);
        MemorySegment work = s.scratch(n);
        MemorySegment scratch = s.scratch(n);
        s.copy(input, work);
        int newRank = foldIn(s, folded, work, scratch, type, op);
        long[][] ranges = newRank >= 0 ? halve(s, folded, newRank, work, scratch, count, type, op) : null;
        int gatherStep = 1 + folded.levels();
        for (int i = 0; i < folded.pof2(); i++) {
            int owner = folded.rankOf(i);
            long[] block = folded.halvingRanges(i, count)[folded.levels()];
            if (r == root) {
                MemorySegment into = elements(recv, block[0], block[1], size);
                if (owner == root) {
                    s.copy(elements(work, block[0], block[1], size), into);
                } else {
                    s.recv(owner, into, gatherStep);
                }
            } else if (r == owner) {
                long[] mine = ranges[folded.levels()];
                s.send(root, elements(work, mine[0], mine[1], size), gatherStep);
            }
        }
        s.endRound();
    }

    /**
     * The fix-up before recursive doubling or halving: an even rank below 2·rem sends all of
     * {@code work} to the rank above it, which combines it on the left. Step 0. Returns the new rank.
     */
    private static int foldIn(Schedule s, FoldedRanks folded, MemorySegment work, MemorySegment scratch, Datatype type,
                              Op op) {
        int r = s.channel().rank();
        if (folded.sitsOut(r)) {
            s.send(r + 1, work, 0);
            s.endRound();
        } else if (folded.absorbs(r)) {
            s.recv(r - 1, scratch, 0);
            s.endRound();
            s.reduce(op, type, scratch, work);
        }
        return folded.newRank(r);
    }

    /**
     * Recursive halving among the new ranks, distance 1, 2, 4, …: the partners of a step hold
     * partial results of neighbouring rank groups over the same range; each keeps one half and
     * combines the partner's half of it. Steps 1 … levels. Returns the ranges of
     * {@link FoldedRanks#halvingRanges}.
     */
    private static long[][] halve(Schedule s, FoldedRanks folded, int newRank, MemorySegment work, MemorySegment scratch,
                                  long count, Datatype type, Op op) {
        long size = type.size();
        long[][] ranges = folded.halvingRanges(newRank, count);
        for (int j = 0; j < folded.levels(); j++) {
            int partnerNew = newRank ^ (1 << j);
            int partner = folded.rankOf(partnerNew);
            long[] range = ranges[j];
            long[] keep = ranges[j + 1];
            long giveFrom = keep[0] == range[0] ? keep[1] : range[0];
            long giveTo = keep[0] == range[0] ? range[1] : keep[0];
            MemorySegment incoming = elements(scratch, keep[0], keep[1], size);
            s.recv(partner, incoming, 1 + j);
            s.send(partner, elements(work, giveFrom, giveTo, size), 1 + j);
            s.endRound();
            combine(s, op, type, partnerNew < newRank, incoming, elements(work, keep[0], keep[1], size));
        }
        return ranges;
    }

    // ---------------------------------------------------------------- allreduce

    /**
     * Recursive doubling: log₂ 2<sup>k</sup> exchanges of the whole vector among the new ranks,
     * with the non-power-of-two fix-up before (step 0) and after (the result back to the ranks that sat out).
     */
    static void allreduceRecursiveDoubling(Schedule s, MemorySegment send, MemorySegment recv, long count,
                                           Datatype type, Op op) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long n = count * type.size();
        MemorySegment work = Buffers.slice(recv, 0, n);
        if (!inPlace(send)) {
            s.copy(Buffers.slice(send, 0, n), work);
        }
        if (p == 1) {
            return;
        }
        FoldedRanks folded = FoldedRanks.of(p);
        MemorySegment scratch = s.scratch(n);
        int newRank = foldIn(s, folded, work, scratch, type, op);
        if (newRank >= 0) {
            for (int j = 0; j < folded.levels(); j++) {
                int partnerNew = newRank ^ (1 << j);
                int partner = folded.rankOf(partnerNew);
                s.recv(partner, scratch, 1 + j);
                s.send(partner, work, 1 + j);
                s.endRound();
                combine(s, op, type, partnerNew < newRank, scratch, work);
            }
        }
        foldOut(s, folded, work, 1 + folded.levels());
    }

    /** After the main steps: the odd ranks below 2·rem send the result to the even rank below them. */
    private static void foldOut(Schedule s, FoldedRanks folded, MemorySegment result, int step) {
        int r = s.channel().rank();
        if (folded.absorbs(r)) {
            s.send(r - 1, result, step);
        } else if (folded.sitsOut(r)) {
            s.recv(r + 1, result, step);
        }
        s.endRound();
    }

    /**
     * Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by recursive
     * doubling over the same pairs in reverse, with the fix-up around both. About 2n bytes cross
     * each rank instead of n·log p.
     */
    static void allreduceReduceScatterAllgather(Schedule s, MemorySegment send, MemorySegment recv, long count,
                                                Datatype type, Op op) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long size = type.size();
        long n = count * size;
        MemorySegment work = Buffers.slice(recv, 0, n);
        if (!inPlace(send)) {
            s.copy(Buffers.slice(send, 0, n), work);
        }
        if (p == 1) {
            return;
        }
        FoldedRanks folded = FoldedRanks.of(p);
        MemorySegment scratch = s.scratch(n);
        int newRank = foldIn(s, folded, work, scratch, type, op);
        int levels = folded.levels();
        if (newRank >= 0) {
            long[][] ranges = halve(s, folded, newRank, work, scratch, count, type, op);
            s.endRound();
            for (int j = levels - 1; j >= 0; j--) {
                int partner = folded.rankOf(newRank ^ (1 << j));
                long[] range = ranges[j];
                long[] mine = ranges[j + 1];
                long theirsFrom = mine[0] == range[0] ? mine[1] : range[0];
                long theirsTo = mine[0] == range[0] ? range[1] : mine[0];
                s.recv(partner, elements(work, theirsFrom, theirsTo, size), 1 + levels + (levels - 1 - j));
                s.send(partner, elements(work, mine[0], mine[1], size), 1 + levels + (levels - 1 - j));
                s.endRound();
            }
        }
        foldOut(s, folded, work, 1 + 2 * levels);
    }

    // ---------------------------------------------------------------- reduce-scatter

    /**
     * Recursive halving for commutative operations: the new ranks halve the set of destination
     * blocks at distance 2<sup>k−1</sup>, …, 2, 1 (a lower partner keeps the lower ranks' blocks),
     * so each step moves half of what is left. The groups combined are not contiguous in rank
     * order, hence commutative operations only. Counts and displacements in elements.
     */
    static void reduceScatterHalving(Schedule s, MemorySegment send, MemorySegment recv, long[] counts,
                                     Datatype type, Op op) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long size = type.size();
        long[] starts = starts(counts);
        long total = starts[p];
        MemorySegment input = inPlace(send) ? Buffers.slice(recv, 0, total * size) : Buffers.slice(send, 0, total * size);
        MemorySegment result = Buffers.slice(recv, 0, counts[r] * size);
        if (p == 1) {
            if (!inPlace(send)) {
                s.copy(input, result);
            }
            return;
        }
        FoldedRanks folded = FoldedRanks.of(p);
        MemorySegment work = s.scratch(total * size);
        MemorySegment scratch = s.scratch(total * size);
        s.copy(input, work);
        int newRank = foldIn(s, folded, work, scratch, type, op);
        int finalStep = 1 + folded.levels();
        if (newRank < 0) {
            s.recv(r + 1, result, finalStep);
            s.endRound();
            return;
        }
        int lo = 0;
        int hi = folded.pof2();
        int step = 1;
        for (int distance = folded.pof2() / 2; distance > 0; distance >>= 1, step++) {
            int partnerNew = newRank ^ distance;
            int partner = folded.rankOf(partnerNew);
            int mid = lo + distance;
            boolean keepLower = newRank < partnerNew;
            int keepLo = keepLower ? lo : mid;
            int keepHi = keepLower ? mid : hi;
            int giveLo = keepLower ? mid : lo;
            int giveHi = keepLower ? hi : mid;
            long keepFrom = starts[folded.firstRankOf(keepLo)];
            long keepTo = starts[folded.firstRankOf(keepHi)];
            long giveFrom = starts[folded.firstRankOf(giveLo)];
            long giveTo = starts[folded.firstRankOf(giveHi)];
            MemorySegment incoming = elements(scratch, keepFrom, keepTo, size);
            s.recv(partner, incoming, step);
            s.send(partner, elements(work, giveFrom, giveTo, size), step);
            s.endRound();
            combine(s, op, type, partnerNew < newRank, incoming, elements(work, keepFrom, keepTo, size));
            lo = keepLo;
            hi = keepHi;
        }
        if (folded.absorbs(r)) {
            s.send(r - 1, elements(work, starts[r - 1], starts[r], size), finalStep);
        }
        s.copy(elements(work, starts[r], starts[r + 1], size), result);
        s.endRound();
    }

    /**
     * Pairwise exchange for any operation: in step k rank r sends the block of rank r + k and
     * receives its own block from rank r − k. Blocks arrive from r − 1, r − 2, …, 0, then
     * p − 1, …, r + 1, so two accumulators, each extended on the left, give the rank-order result
     * {@code (x₀ ∘ … ∘ x_r) ∘ (x_{r+1} ∘ … ∘ x_{p−1})}. Each combination overlaps the next step's
     * messages. Counts in elements.
     */
    static void reduceScatterPairwise(Schedule s, MemorySegment send, MemorySegment recv, long[] counts,
                                      Datatype type, Op op) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long size = type.size();
        long[] starts = starts(counts);
        long total = starts[p];
        long mine = counts[r] * size;
        MemorySegment input;
        if (inPlace(send)) {
            input = s.scratch(total * size);
            s.copy(Buffers.slice(recv, 0, total * size), input);
        } else {
            input = Buffers.slice(send, 0, total * size);
        }
        MemorySegment result = Buffers.slice(recv, 0, mine);
        if (p == 1) {
            s.copy(input, result);
            return;
        }
        MemorySegment lower = s.scratch(mine);
        MemorySegment upper = s.scratch(mine);
        MemorySegment[] incoming = {s.scratch(mine), s.scratch(mine)};
        s.copy(elements(input, starts[r], starts[r + 1], size), lower);
        boolean upperStarted = false;
        int previousSource = -1;
        MemorySegment previous = null;
        for (int k = 1; k < p; k++) {
            int from = Math.floorMod(r - k, p);
            int to = (r + k) % p;
            MemorySegment into = incoming[k % 2];
            s.recv(from, into, 0);
            s.send(to, elements(input, starts[to], starts[to + 1], size), 0);
            if (previous != null) {
                upperStarted = accumulate(s, op, type, r, previousSource, previous, lower, upper, upperStarted);
            }
            s.endRound();
            previousSource = from;
            previous = into;
        }
        upperStarted = accumulate(s, op, type, r, previousSource, previous, lower, upper, upperStarted);
        if (upperStarted) {
            s.reduce(op, type, lower, upper);
            s.copy(upper, result);
        } else {
            s.copy(lower, result);
        }
    }

    private static boolean accumulate(Schedule s, Op op, Datatype type, int r, int source, MemorySegment block,
                                      MemorySegment lower, MemorySegment upper, boolean upperStarted) {
        if (source < r) {
            s.reduce(op, type, block, lower);
            return upperStarted;
        }
        if (upperStarted) {
            s.reduce(op, type, block, upper);
        } else {
            s.copy(block, upper);
        }
        return true;
    }

    /** Prefix sums of {@code counts}: entry i is where block i starts, entry p the total. */
    static long[] starts(long[] counts) {
        long[] starts = new long[counts.length + 1];
        for (int i = 0; i < counts.length; i++) {
            starts[i + 1] = starts[i] + counts[i];
        }
        return starts;
    }

    // ---------------------------------------------------------------- scan

    /**
     * Recursive doubling scan: at distance 2<sup>k</sup> partners swap the combination of their
     * aligned groups; the upper one prepends it to both its result and its group's partial.
     * Works for any p (partners beyond the last rank are skipped).
     */
    static void scanRecursiveDoubling(Schedule s, MemorySegment send, MemorySegment recv, long count, Datatype type,
                                      Op op, boolean exclusive) {
        int p = s.channel().size();
        int r = s.channel().rank();
        long n = count * type.size();
        MemorySegment input = inPlace(send) ? Buffers.slice(recv, 0, n) : Buffers.slice(send, 0, n);
        MemorySegment result = Buffers.slice(recv, 0, n);
        if (!exclusive && !inPlace(send)) {
            s.copy(input, result);
        }
        if (p == 1) {
            return;
        }
        MemorySegment partial = s.scratch(n);
        MemorySegment incoming = s.scratch(n);
        s.copy(input, partial);
        boolean haveResult = !exclusive;
        int step = 0;
        for (int distance = 1; distance < p; distance <<= 1, step++) {
            int partner = r ^ distance;
            if (partner >= p) {
                continue;
            }
            s.recv(partner, incoming, step);
            s.send(partner, partial, step);
            s.endRound();
            if (partner < r) {
                if (haveResult) {
                    s.reduce(op, type, incoming, result);
                } else {
                    s.copy(incoming, result);
                    haveResult = true;
                }
                s.reduce(op, type, incoming, partial);
            } else {
                s.reduce(op, type, partial, incoming);
                s.copy(incoming, partial);
            }
        }
    }
}
