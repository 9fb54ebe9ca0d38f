package org.lockstep.spi.collective;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.spi.events.CollectiveRecording;

/**
 * The default collective algorithms, built on the point-to-point operations of the collective
 * channel and correct for every number of ranks. Each collective is a {@link Schedule} of rounds,
 * so the blocking and the non-blocking form run the same algorithm.
 *
 * <p>Which algorithm runs is chosen by message size and rank count in the {@code *Algorithm}
 * methods, from the thresholds below (after MPICH's and Open MPI's published choices; the
 * mailbox transport replaces them by measured crossovers). A provider overrides a choice, a
 * schedule, or a whole collective by subclassing. A choice must come out the same on every rank
 * for the same arguments (they all build the same algorithm), except where said otherwise.
 *
 * <table>
 *   <caption>Algorithms and when they run (n = message bytes, p = ranks)</caption>
 *   <tr><th>collective</th><th>algorithm</th></tr>
 *   <tr><td>barrier</td><td>dissemination, ⌈log₂ p⌉ rounds</td></tr>
 *   <tr><td>bcast</td><td>binomial tree if n &lt; {@value #BCAST_SHORT_BYTES} or p &lt; {@value #BCAST_SCATTER_MIN_RANKS};
 *       else binomial scatter + ring allgather (van de Geijn)</td></tr>
 *   <tr><td>gather, scatter</td><td>binomial tree for blocks up to {@value #ROOTED_BINOMIAL_MAX_BLOCK_BYTES} bytes, else linear</td></tr>
 *   <tr><td>gatherv, scatterv</td><td>linear</td></tr>
 *   <tr><td>allgather</td><td>Bruck if p·block &lt; {@value #ALLGATHER_BRUCK_MAX_BYTES} bytes, else ring</td></tr>
 *   <tr><td>allgatherv</td><td>ring</td></tr>
 *   <tr><td>alltoall</td><td>Bruck for blocks up to {@value #ALLTOALL_BRUCK_MAX_BLOCK_BYTES} bytes and p ≥ {@value #ALLTOALL_BRUCK_MIN_RANKS};
 *       all exchanges at once up to {@value #ALLTOALL_ALL_AT_ONCE_MAX_BLOCK_BYTES} bytes; else pairwise, one partner per round</td></tr>
 *   <tr><td>alltoallv</td><td>as alltoall without Bruck, chosen per rank by its largest block</td></tr>
 *   <tr><td>reduce</td><td>binomial tree if n ≤ {@value #REDUCE_LONG_BYTES} or count &lt; 2<sup>⌊log₂ p⌋</sup>;
 *       else reduce-scatter by recursive halving + gather (Rabenseifner)</td></tr>
 *   <tr><td>allreduce</td><td>recursive doubling if n ≤ {@value #ALLREDUCE_LONG_BYTES} or count &lt; 2<sup>⌊log₂ p⌋</sup>;
 *       else reduce-scatter by recursive halving + allgather by recursive doubling (Rabenseifner)</td></tr>
 *   <tr><td>reduce_scatter(_block)</td><td>recursive halving for commutative operations and n &lt; {@value #REDUCE_SCATTER_HALVING_MAX_BYTES};
 *       else pairwise exchange (any operation)</td></tr>
 *   <tr><td>scan, exscan</td><td>recursive doubling</td></tr>
 * </table>
 *
 * <p>Every collective also has a public {@code *Schedule} method that builds it without running
 * it, so a provider gets the non-blocking form of any collective ({@link Schedule#start()}) and
 * can reuse an algorithm inside its own. Non-blocking collectives move when their request is
 * tested or waited on, when the rank waits on any other of its collectives, and when the
 * provider calls {@link Schedule#progressPending()} from its own waits.
 *
 * <p>Non-power-of-two rank counts use the usual fix-up (the first 2·(p − 2<sup>k</sup>) ranks pair
 * up before and after the power-of-two part). Reductions always put the lower ranks' partial result
 * on the left, so non-commutative operations combine in rank order and allreduce is bit-identical
 * on every rank.
 */
public class PointToPointCollectives implements CollectiveEngine {
    /** The default engine. */
    public static final PointToPointCollectives INSTANCE = new PointToPointCollectives();

    /** Broadcasts shorter than this use the binomial tree. */
    public static final long BCAST_SHORT_BYTES = 12 * 1024;
    /** Scatter + allgather broadcast needs at least this many ranks to pay off. */
    public static final int BCAST_SCATTER_MIN_RANKS = 8;
    /** Gather and scatter use the binomial tree for blocks up to this size, above it the root talks to every rank. */
    public static final long ROOTED_BINOMIAL_MAX_BLOCK_BYTES = 2048;
    /** Allgathers whose result is smaller than this use Bruck's algorithm, larger ones the ring. */
    public static final long ALLGATHER_BRUCK_MAX_BYTES = 80 * 1024;
    /** Alltoall uses Bruck's algorithm for blocks up to this size (with enough ranks). */
    public static final long ALLTOALL_BRUCK_MAX_BLOCK_BYTES = 256;
    /** Bruck's alltoall needs at least this many ranks to pay off. */
    public static final int ALLTOALL_BRUCK_MIN_RANKS = 8;
    /** Alltoall posts all its exchanges at once for blocks up to this size, above it one partner per round. */
    public static final long ALLTOALL_ALL_AT_ONCE_MAX_BLOCK_BYTES = 32 * 1024;
    /** Reductions to one root longer than this use reduce-scatter + gather. */
    public static final long REDUCE_LONG_BYTES = 2048;
    /** Allreduces longer than this use reduce-scatter + allgather. */
    public static final long ALLREDUCE_LONG_BYTES = 2048;
    /** Reduce-scatters shorter than this (in total) use recursive halving, for commutative operations. */
    public static final long REDUCE_SCATTER_HALVING_MAX_BYTES = 512 * 1024;

    public enum BcastAlgorithm { BINOMIAL, SCATTER_RING_ALLGATHER }

    /** Of gather and scatter. */
    public enum RootedAlgorithm { BINOMIAL, LINEAR }

    public enum AllgatherAlgorithm { BRUCK, RING }

    public enum AlltoallAlgorithm { BRUCK, ALL_AT_ONCE, PAIRWISE }

    public enum ReduceAlgorithm { BINOMIAL, REDUCE_SCATTER_GATHER }

    public enum AllreduceAlgorithm { RECURSIVE_DOUBLING, REDUCE_SCATTER_ALLGATHER }

    public enum ReduceScatterAlgorithm { RECURSIVE_HALVING, PAIRWISE }

    protected PointToPointCollectives() {
    }

    private static boolean inPlace(MemorySegment segment) {
        return segment == Communicator.IN_PLACE;
    }

    private static long[] bytes(long[] counts, Datatype type) {
        long[] bytes = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            bytes[i] = counts[i] * type.size();
        }
        return bytes;
    }

    // ================================================================ algorithm choices

    protected BcastAlgorithm bcastAlgorithm(int ranks, long bytes) {
        return bytes < BCAST_SHORT_BYTES || ranks < BCAST_SCATTER_MIN_RANKS
                ? BcastAlgorithm.BINOMIAL : BcastAlgorithm.SCATTER_RING_ALLGATHER;
    }

    protected RootedAlgorithm gatherAlgorithm(int ranks, long blockBytes) {
        return blockBytes <= ROOTED_BINOMIAL_MAX_BLOCK_BYTES ? RootedAlgorithm.BINOMIAL : RootedAlgorithm.LINEAR;
    }

    protected RootedAlgorithm scatterAlgorithm(int ranks, long blockBytes) {
        return blockBytes <= ROOTED_BINOMIAL_MAX_BLOCK_BYTES ? RootedAlgorithm.BINOMIAL : RootedAlgorithm.LINEAR;
    }

    protected AllgatherAlgorithm allgatherAlgorithm(int ranks, long blockBytes) {
        return ranks * blockBytes < ALLGATHER_BRUCK_MAX_BYTES ? AllgatherAlgorithm.BRUCK : AllgatherAlgorithm.RING;
    }

    protected AlltoallAlgorithm alltoallAlgorithm(int ranks, long blockBytes) {
        if (blockBytes <= ALLTOALL_BRUCK_MAX_BLOCK_BYTES && ranks >= ALLTOALL_BRUCK_MIN_RANKS) {
            return AlltoallAlgorithm.BRUCK;
        }
        return blockBytes <= ALLTOALL_ALL_AT_ONCE_MAX_BLOCK_BYTES ? AlltoallAlgorithm.ALL_AT_ONCE : AlltoallAlgorithm.PAIRWISE;
    }

    /**
     * Alltoallv: {@link AlltoallAlgorithm#ALL_AT_ONCE} or {@link AlltoallAlgorithm#PAIRWISE}; ranks
     * may differ here (the two exchange the same messages with the same tags).
     */
    protected AlltoallAlgorithm alltoallvAlgorithm(int ranks, long largestBlockBytes) {
        return largestBlockBytes <= ALLTOALL_ALL_AT_ONCE_MAX_BLOCK_BYTES ? AlltoallAlgorithm.ALL_AT_ONCE : AlltoallAlgorithm.PAIRWISE;
    }

    protected ReduceAlgorithm reduceAlgorithm(int ranks, long count, Datatype type, Op op) {
        return count * type.size() <= REDUCE_LONG_BYTES || count < Integer.highestOneBit(ranks)
                ? ReduceAlgorithm.BINOMIAL : ReduceAlgorithm.REDUCE_SCATTER_GATHER;
    }

    protected AllreduceAlgorithm allreduceAlgorithm(int ranks, long count, Datatype type, Op op) {
        return count * type.size() <= ALLREDUCE_LONG_BYTES || count < Integer.highestOneBit(ranks)
                ? AllreduceAlgorithm.RECURSIVE_DOUBLING : AllreduceAlgorithm.REDUCE_SCATTER_ALLGATHER;
    }

    /** {@link ReduceScatterAlgorithm#RECURSIVE_HALVING} only for commutative operations. */
    protected ReduceScatterAlgorithm reduceScatterAlgorithm(int ranks, long totalCount, Datatype type, Op op) {
        return op.isCommutative() && totalCount * type.size() < REDUCE_SCATTER_HALVING_MAX_BYTES
                ? ReduceScatterAlgorithm.RECURSIVE_HALVING : ReduceScatterAlgorithm.PAIRWISE;
    }

    /** Names the chosen algorithm in the call's {@link org.lockstep.spi.events.CollectiveEvent}. */
    private static <A extends Enum<A>> A named(A algorithm) {
        CollectiveRecording.algorithm("point-to-point " + algorithm.name().toLowerCase(Locale.ROOT).replace('_', ' '));
        return algorithm;
    }

    // ================================================================ schedules

    public Schedule barrierSchedule(Communicator channel) {
        Schedule s = new Schedule(channel);
        CollectiveRecording.algorithm("point-to-point dissemination");
        BroadcastSchedules.barrierDissemination(s);
        return s;
    }

    public Schedule bcastSchedule(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        Schedule s = new Schedule(channel);
        long n = count * type.size();
        if (n == 0 || channel.size() == 1) {
            return s;
        }
        MemorySegment data = Buffers.slice(buffer, 0, n);
        switch (named(bcastAlgorithm(channel.size(), n))) {
            case BINOMIAL -> BroadcastSchedules.bcastBinomial(s, data, root);
            case SCATTER_RING_ALLGATHER -> BroadcastSchedules.bcastScatterRingAllgather(s, data, root);
        }
        return s;
    }

    public Schedule gatherSchedule(Communicator channel, MemorySegment send, long count, Datatype type,
                                   MemorySegment recv, int root) {
        Schedule s = new Schedule(channel);
        long block = count * type.size();
        if (block == 0) {
            return s;
        }
        switch (named(gatherAlgorithm(channel.size(), block))) {
            case BINOMIAL -> DistributionSchedules.gatherBinomial(s, send, block, recv, root);
            case LINEAR -> DistributionSchedules.gatherLinear(s, send, block, recv, root);
        }
        return s;
    }

    public Schedule gathervSchedule(Communicator channel, MemorySegment send, long sendCount, Datatype type,
                                    MemorySegment recv, long[] recvCounts, long[] displacements, int root) {
        Schedule s = new Schedule(channel);
        boolean isRoot = channel.rank() == root;
        CollectiveRecording.algorithm("point-to-point linear");
        DistributionSchedules.gathervLinear(s, send, sendCount * type.size(), recv,
                isRoot ? bytes(recvCounts, type) : null, isRoot ? bytes(displacements, type) : null, root);
        return s;
    }

    public Schedule scatterSchedule(Communicator channel, MemorySegment send, long count, Datatype type,
                                    MemorySegment recv, int root) {
        Schedule s = new Schedule(channel);
        long block = count * type.size();
        if (block == 0) {
            return s;
        }
        switch (named(scatterAlgorithm(channel.size(), block))) {
            case BINOMIAL -> DistributionSchedules.scatterBinomial(s, send, block, recv, root);
            case LINEAR -> DistributionSchedules.scatterLinear(s, send, block, recv, root);
        }
        return s;
    }

    public Schedule scattervSchedule(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements,
                                     Datatype type, MemorySegment recv, long recvCount, int root) {
        Schedule s = new Schedule(channel);
        boolean isRoot = channel.rank() == root;
        CollectiveRecording.algorithm("point-to-point linear");
        DistributionSchedules.scattervLinear(s, send, isRoot ? bytes(sendCounts, type) : null,
                isRoot ? bytes(displacements, type) : null, recv, recvCount * type.size(), root);
        return s;
    }

    public Schedule allgatherSchedule(Communicator channel, MemorySegment send, long count, Datatype type,
                                      MemorySegment recv) {
        Schedule s = new Schedule(channel);
        long block = count * type.size();
        if (block == 0) {
            return s;
        }
        switch (named(allgatherAlgorithm(channel.size(), block))) {
            case BRUCK -> DistributionSchedules.allgatherBruck(s, send, block, recv);
            case RING -> DistributionSchedules.allgatherRing(s, send, block, recv);
        }
        return s;
    }

    public Schedule allgathervSchedule(Communicator channel, MemorySegment send, long sendCount, Datatype type,
                                       MemorySegment recv, long[] recvCounts, long[] displacements) {
        Schedule s = new Schedule(channel);
        CollectiveRecording.algorithm("point-to-point ring");
        DistributionSchedules.allgathervRing(s, send, sendCount * type.size(), recv, bytes(recvCounts, type),
                bytes(displacements, type));
        return s;
    }

    public Schedule alltoallSchedule(Communicator channel, MemorySegment send, long count, Datatype type,
                                     MemorySegment recv) {
        Schedule s = new Schedule(channel);
        long block = count * type.size();
        if (block == 0) {
            return s;
        }
        switch (named(alltoallAlgorithm(channel.size(), block))) {
            case BRUCK -> DistributionSchedules.alltoallBruck(s, send, block, recv);
            case ALL_AT_ONCE -> DistributionSchedules.alltoallExchange(s, send, block, recv, false);
            case PAIRWISE -> DistributionSchedules.alltoallExchange(s, send, block, recv, true);
        }
        return s;
    }

    public Schedule alltoallvSchedule(Communicator channel, MemorySegment send, long[] sendCounts,
                                      long[] sendDisplacements, Datatype type, MemorySegment recv, long[] recvCounts,
                                      long[] recvDisplacements) {
        Schedule s = new Schedule(channel);
        long[] recvBytes = bytes(recvCounts, type);
        long[] sendBytes = inPlace(send) ? recvBytes : bytes(sendCounts, type);
        long largest = 0;
        for (int i = 0; i < recvBytes.length; i++) {
            largest = Math.max(largest, Math.max(recvBytes[i], sendBytes[i]));
        }
        boolean pairwise = switch (named(alltoallvAlgorithm(channel.size(), largest))) {
            case PAIRWISE -> true;
            case ALL_AT_ONCE -> false;
            case BRUCK -> throw new IllegalStateException("alltoallv has no Bruck variant");
        };
        DistributionSchedules.alltoallvExchange(s, send, inPlace(send) ? null : sendBytes,
                inPlace(send) ? null : bytes(sendDisplacements, type), recv, recvBytes, bytes(recvDisplacements, type),
                pairwise);
        return s;
    }

    public Schedule reduceSchedule(Communicator channel, MemorySegment send, MemorySegment recv, long count,
                                   Datatype type, Op op, int root) {
        Schedule s = new Schedule(channel);
        if (count == 0) {
            return s;
        }
        switch (named(reduceAlgorithm(channel.size(), count, type, op))) {
            case BINOMIAL -> ReductionSchedules.reduceBinomial(s, send, recv, count, type, op, root);
            case REDUCE_SCATTER_GATHER -> ReductionSchedules.reduceScatterGather(s, send, recv, count, type, op, root);
        }
        return s;
    }

    public Schedule allreduceSchedule(Communicator channel, MemorySegment send, MemorySegment recv, long count,
                                      Datatype type, Op op) {
        Schedule s = new Schedule(channel);
        if (count == 0) {
            return s;
        }
        switch (named(allreduceAlgorithm(channel.size(), count, type, op))) {
            case RECURSIVE_DOUBLING -> ReductionSchedules.allreduceRecursiveDoubling(s, send, recv, count, type, op);
            case REDUCE_SCATTER_ALLGATHER ->
                    ReductionSchedules.allreduceReduceScatterAllgather(s, send, recv, count, type, op);
        }
        return s;
    }

    public Schedule reduceScatterSchedule(Communicator channel, MemorySegment send, MemorySegment recv,
                                          long[] recvCounts, Datatype type, Op op) {
        Schedule s = new Schedule(channel);
        long total = 0;
        for (long c : recvCounts) {
            total += c;
        }
        if (total == 0) {
            return s;
        }
        switch (named(reduceScatterAlgorithm(channel.size(), total, type, op))) {
            case RECURSIVE_HALVING -> {
                if (!op.isCommutative()) {
                    throw new IllegalStateException("recursive halving reduce-scatter needs a commutative operation, not " + op);
                }
                ReductionSchedules.reduceScatterHalving(s, send, recv, recvCounts, type, op);
            }
            case PAIRWISE -> ReductionSchedules.reduceScatterPairwise(s, send, recv, recvCounts, type, op);
        }
        return s;
    }

    public Schedule scanSchedule(Communicator channel, MemorySegment send, MemorySegment recv, long count,
                                 Datatype type, Op op) {
        Schedule s = new Schedule(channel);
        if (count > 0) {
            CollectiveRecording.algorithm("point-to-point recursive doubling");
            ReductionSchedules.scanRecursiveDoubling(s, send, recv, count, type, op, false);
        }
        return s;
    }

    public Schedule exscanSchedule(Communicator channel, MemorySegment send, MemorySegment recv, long count,
                                   Datatype type, Op op) {
        Schedule s = new Schedule(channel);
        if (count > 0) {
            CollectiveRecording.algorithm("point-to-point recursive doubling");
            ReductionSchedules.scanRecursiveDoubling(s, send, recv, count, type, op, true);
        }
        return s;
    }

    // ================================================================ the engine

    @Override
    public void barrier(Communicator channel) {
        barrierSchedule(channel).run();
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        bcastSchedule(channel, buffer, count, type, root).run();
    }

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        gatherSchedule(channel, send, count, type, recv, root).run();
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                        long[] recvCounts, long[] displacements, int root) {
        gathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements, root).run();
    }

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        scatterSchedule(channel, send, count, type, recv, root).run();
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements,
                         Datatype type, MemorySegment recv, long recvCount, int root) {
        scattervSchedule(channel, send, sendCounts, displacements, type, recv, recvCount, root).run();
    }

    @Override
    public void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        allgatherSchedule(channel, send, count, type, recv).run();
    }

    @Override
    public void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                           long[] recvCounts, long[] displacements) {
        allgathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements).run();
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        alltoallSchedule(channel, send, count, type, recv).run();
    }

    @Override
    public void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                          Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        alltoallvSchedule(channel, send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements).run();
    }

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                       int root) {
        reduceSchedule(channel, send, recv, count, type, op, root).run();
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        allreduceSchedule(channel, send, recv, count, type, op).run();
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts,
                              Datatype type, Op op) {
        reduceScatterSchedule(channel, send, recv, recvCounts, type, op).run();
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount,
                                   Datatype type, Op op) {
        long[] counts = new long[channel.size()];
        Arrays.fill(counts, recvCount);
        reduceScatterSchedule(channel, send, recv, counts, type, op).run();
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        scanSchedule(channel, send, recv, count, type, op).run();
    }

    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        exscanSchedule(channel, send, recv, count, type, op).run();
    }

    @Override
    public Request ibarrier(Communicator channel) {
        return barrierSchedule(channel).start();
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        return bcastSchedule(channel, buffer, count, type, root).start();
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type,
                              Op op) {
        return allreduceSchedule(channel, send, recv, count, type, op).start();
    }

    @Override
    public Request igather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return gatherSchedule(channel, send, count, type, recv, root).start();
    }

    @Override
    public Request igatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                            long[] recvCounts, long[] displacements, int root) {
        return gathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements, root).start();
    }

    @Override
    public Request iscatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        return scatterSchedule(channel, send, count, type, recv, root).start();
    }

    @Override
    public Request iscatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                             MemorySegment recv, long recvCount, int root) {
        return scattervSchedule(channel, send, sendCounts, displacements, type, recv, recvCount, root).start();
    }

    @Override
    public Request iallgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return allgatherSchedule(channel, send, count, type, recv).start();
    }

    @Override
    public Request iallgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                               long[] recvCounts, long[] displacements) {
        return allgathervSchedule(channel, send, sendCount, type, recv, recvCounts, displacements).start();
    }

    @Override
    public Request ialltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        return alltoallSchedule(channel, send, count, type, recv).start();
    }

    @Override
    public Request ialltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements,
                              Datatype type, MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        return alltoallvSchedule(channel, send, sendCounts, sendDisplacements, type, recv, recvCounts, recvDisplacements).start();
    }

    @Override
    public Request ireduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
                           int root) {
        return reduceSchedule(channel, send, recv, count, type, op, root).start();
    }

    @Override
    public Request ireduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts,
                                  Datatype type, Op op) {
        return reduceScatterSchedule(channel, send, recv, recvCounts, type, op).start();
    }

    @Override
    public Request iscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return scanSchedule(channel, send, recv, count, type, op).start();
    }

    @Override
    public Request iexscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return exscanSchedule(channel, send, recv, count, type, op).start();
    }
}
