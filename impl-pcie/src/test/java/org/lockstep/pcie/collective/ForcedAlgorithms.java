package org.lockstep.pcie.collective;

import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.spi.collective.PointToPointCollectives;

/**
 * The default engine with some algorithm choices pinned, so that every algorithm is tested at
 * every rank count and size, not only where its threshold would pick it. Also proves that a
 * provider can override the choices by subclassing.
 */
final class ForcedAlgorithms extends PointToPointCollectives {
    private BcastAlgorithm bcast;
    private RootedAlgorithm gather;
    private RootedAlgorithm scatter;
    private AllgatherAlgorithm allgather;
    private AlltoallAlgorithm alltoall;
    private AlltoallAlgorithm alltoallv;
    private ReduceAlgorithm reduce;
    private AllreduceAlgorithm allreduce;
    private ReduceScatterAlgorithm reduceScatter;

    static ForcedAlgorithms bcast(BcastAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.bcast = a;
        return f;
    }

    static ForcedAlgorithms rooted(RootedAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.gather = a;
        f.scatter = a;
        return f;
    }

    static ForcedAlgorithms allgather(AllgatherAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.allgather = a;
        return f;
    }

    static ForcedAlgorithms alltoall(AlltoallAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.alltoall = a;
        f.alltoallv = a == AlltoallAlgorithm.BRUCK ? null : a;
        return f;
    }

    static ForcedAlgorithms reduce(ReduceAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.reduce = a;
        return f;
    }

    static ForcedAlgorithms allreduce(AllreduceAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.allreduce = a;
        return f;
    }

    static ForcedAlgorithms reduceScatter(ReduceScatterAlgorithm a) {
        ForcedAlgorithms f = new ForcedAlgorithms();
        f.reduceScatter = a;
        return f;
    }

    @Override
    protected BcastAlgorithm bcastAlgorithm(int ranks, long bytes) {
        return bcast != null ? bcast : super.bcastAlgorithm(ranks, bytes);
    }

    @Override
    protected RootedAlgorithm gatherAlgorithm(int ranks, long blockBytes) {
        return gather != null ? gather : super.gatherAlgorithm(ranks, blockBytes);
    }

    @Override
    protected RootedAlgorithm scatterAlgorithm(int ranks, long blockBytes) {
        return scatter != null ? scatter : super.scatterAlgorithm(ranks, blockBytes);
    }

    @Override
    protected AllgatherAlgorithm allgatherAlgorithm(int ranks, long blockBytes) {
        return allgather != null ? allgather : super.allgatherAlgorithm(ranks, blockBytes);
    }

    @Override
    protected AlltoallAlgorithm alltoallAlgorithm(int ranks, long blockBytes) {
        return alltoall != null ? alltoall : super.alltoallAlgorithm(ranks, blockBytes);
    }

    @Override
    protected AlltoallAlgorithm alltoallvAlgorithm(int ranks, long largestBlockBytes) {
        return alltoallv != null ? alltoallv : super.alltoallvAlgorithm(ranks, largestBlockBytes);
    }

    @Override
    protected ReduceAlgorithm reduceAlgorithm(int ranks, long count, Datatype type, Op op) {
        return reduce != null ? reduce : super.reduceAlgorithm(ranks, count, type, op);
    }

    @Override
    protected AllreduceAlgorithm allreduceAlgorithm(int ranks, long count, Datatype type, Op op) {
        return allreduce != null ? allreduce : super.allreduceAlgorithm(ranks, count, type, op);
    }

    @Override
    protected ReduceScatterAlgorithm reduceScatterAlgorithm(int ranks, long totalCount, Datatype type, Op op) {
        if (reduceScatter == ReduceScatterAlgorithm.RECURSIVE_HALVING && !op.isCommutative()) {
            return ReduceScatterAlgorithm.PAIRWISE;
        }
        return reduceScatter != null ? reduceScatter : super.reduceScatterAlgorithm(ranks, totalCount, type, op);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("forced[");
        for (Object a : new Object[] {bcast, gather, allgather, alltoall, reduce, allreduce, reduceScatter}) {
            if (a != null) {
                b.append(a);
            }
        }
        return b.append(']').toString();
    }
}
