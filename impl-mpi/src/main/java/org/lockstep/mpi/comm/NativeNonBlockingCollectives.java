package org.lockstep.mpi.comm;

import static org.lockstep.mpi.comm.NativeCollectives.count;
import static org.lockstep.mpi.comm.NativeCollectives.extent;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.api.Status;
import org.lockstep.mpi.binding.Mpi;
import org.lockstep.spi.collective.CollectiveEngine;

/**
 * The non-blocking collectives of {@link NativeCollectives} as the library's own
 * ({@code MPI_Ibarrier} ... {@code MPI_Iexscan}), on the communicator's native handle with the
 * element's MPI type, so that the library's
 * algorithms, reductions and progress apply (user operations reach {@code Op.apply} through the
 * upcall of {@link NativeTypes}, in whichever call progresses the request). Buffers, counts and
 * displacements live as long as the request ({@link RequestStaging}). The API's alltoallw reaches
 * {@code MPI_Ialltoallv} here as packed bytes (its datatypes are the API's, not the library's).
 */
abstract class NativeNonBlockingCollectives implements CollectiveEngine {
    /** A collective's request completes with no source, tag or length. */
    private static final Status COLLECTIVE = Status.of(Communicator.ANY_SOURCE, Communicator.ANY_TAG, 0);

    final MpiSession session;

    NativeNonBlockingCollectives(MpiSession session) {
        this.session = session;
    }

    static MpiCommunicator mpi(Communicator channel) {
        return (MpiCommunicator) channel;
    }

    /** The starting call, given where to write its {@code MPI_Request}; returns its error code. */
    @FunctionalInterface
    private interface Start {
        int call(MemorySegment request) throws Throwable;
    }

    /** Stages the call's buffers, returns its start. */
    @FunctionalInterface
    private interface Setup {
        Start stage(RequestStaging staging);
    }

    /** Stages the buffers and starts {@code call} under the thread guard; what was staged is freed if it does not start. */
    private Request start(String call, Setup setup) {
        RequestStaging staging = new RequestStaging();
        Start start;
        try {
            start = setup.stage(staging);
        } catch (RuntimeException e) {
            staging.release();
            throw e;
        }
        MpiRequest request = MpiRequest.create(session, call, MpiRequest.Kind.COLLECTIVE, COLLECTIVE, staging.all());
        MemorySegment address = request.handleAddress();
        int rc;
        try {
            rc = session.guard().invoke(() -> start.call(address));
        } catch (RuntimeException e) {
            request.abandon();
            throw e;
        }
        if (rc != 0) {
            throw request.startFailed(rc);
        }
        return request;
    }

    /**
     * A call's arguments as the library takes them: the communicator and its handle, the element's
     * MPI type (and a reduction's operation), a count as MPI's {@code int} and its bytes.
     */
    private record Call(MpiCommunicator on, long comm, long type, long op, int count, long bytes) {
    }

    private Call moving(MpiCommunicator c, Datatype type, long count) {
        return new Call(c, c.handle(), session.types().of(type), 0, count(count), type.byteLength(count));
    }

    private Call reduction(MpiCommunicator c, Datatype type, Op op, long count) {
        return new Call(c, c.handle(), session.types().forReduction(type, op), session.types().op(op, type), count(count),
                type.byteLength(count));
    }

    @Override
    public Request ibarrier(Communicator channel) {
        long h = mpi(channel).handle();
        return start("MPI_Ibarrier", b -> r -> (int) Mpi.IBARRIER.invokeExact(h, r));
    }

    @Override
    public Request ibcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        Call a = moving(mpi(channel), type, count);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Ibcast", b -> {
            MemorySegment data = isRoot ? b.in(buffer, a.bytes()) : b.out(buffer, a.bytes(), false);
            return r -> (int) Mpi.IBCAST.invokeExact(data, a.count(), a.type(), root, a.comm(), r);
        });
    }

    @Override
    public Request igather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        Call a = moving(mpi(channel), type, count);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Igather", b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment into = isRoot ? b.out(recv, a.bytes() * a.on().size(), send == Communicator.IN_PLACE) : MemorySegment.NULL;
            return r -> (int) Mpi.IGATHER.invokeExact(s, a.count(), a.type(), into, a.count(), a.type(), root, a.comm(), r);
        });
    }

    @Override
    public Request igatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                            long[] recvCounts, long[] displacements, int root) {
        Call a = moving(mpi(channel), type, sendCount);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Igatherv", b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment counts = isRoot ? b.ints(recvCounts) : MemorySegment.NULL;
            MemorySegment displs = isRoot ? b.ints(displacements) : MemorySegment.NULL;
            MemorySegment into = isRoot ? b.out(recv, extent(recvCounts, displacements, type), send == Communicator.IN_PLACE)
                    : MemorySegment.NULL;
            return r -> (int) Mpi.IGATHERV.invokeExact(s, a.count(), a.type(), into, counts, displs, a.type(), root, a.comm(), r);
        });
    }

    @Override
    public Request iscatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        Call a = moving(mpi(channel), type, count);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Iscatter", b -> {
            MemorySegment s = isRoot ? b.in(send, a.bytes() * a.on().size()) : MemorySegment.NULL;
            MemorySegment into = recv == Communicator.IN_PLACE ? Mpi.ABI.inPlace() : b.out(recv, a.bytes(), false);
            return r -> (int) Mpi.ISCATTER.invokeExact(s, a.count(), a.type(), into, a.count(), a.type(), root, a.comm(), r);
        });
    }

    @Override
    public Request iscatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                             MemorySegment recv, long recvCount, int root) {
        Call a = moving(mpi(channel), type, recvCount);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Iscatterv", b -> {
            MemorySegment s = isRoot ? b.in(send, extent(sendCounts, displacements, type)) : MemorySegment.NULL;
            MemorySegment counts = isRoot ? b.ints(sendCounts) : MemorySegment.NULL;
            MemorySegment displs = isRoot ? b.ints(displacements) : MemorySegment.NULL;
            MemorySegment into = recv == Communicator.IN_PLACE ? Mpi.ABI.inPlace() : b.out(recv, a.bytes(), false);
            return r -> (int) Mpi.ISCATTERV.invokeExact(s, counts, displs, a.type(), into, a.count(), a.type(), root, a.comm(), r);
        });
    }

    @Override
    public Request iallgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        Call a = moving(mpi(channel), type, count);
        return start("MPI_Iallgather", b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment into = b.out(recv, a.bytes() * a.on().size(), send == Communicator.IN_PLACE);
            return r -> (int) Mpi.IALLGATHER.invokeExact(s, a.count(), a.type(), into, a.count(), a.type(), a.comm(), r);
        });
    }

    @Override
    public Request iallgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                               long[] recvCounts, long[] displacements) {
        Call a = moving(mpi(channel), type, sendCount);
        return start("MPI_Iallgatherv", b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment counts = b.ints(recvCounts);
            MemorySegment displs = b.ints(displacements);
            MemorySegment into = b.out(recv, extent(recvCounts, displacements, type), send == Communicator.IN_PLACE);
            return r -> (int) Mpi.IALLGATHERV.invokeExact(s, a.count(), a.type(), into, counts, displs, a.type(), a.comm(), r);
        });
    }

    @Override
    public Request ialltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        Call a = moving(mpi(channel), type, count);
        long all = a.bytes() * a.on().size();
        return start("MPI_Ialltoall", b -> {
            MemorySegment s = b.in(send, all);
            MemorySegment into = b.out(recv, all, send == Communicator.IN_PLACE);
            return r -> (int) Mpi.IALLTOALL.invokeExact(s, a.count(), a.type(), into, a.count(), a.type(), a.comm(), r);
        });
    }

    @Override
    public Request ialltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                              MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        Call a = moving(mpi(channel), type, 0);
        boolean inPlace = send == Communicator.IN_PLACE;
        return start("MPI_Ialltoallv", b -> {
            MemorySegment s = inPlace ? Mpi.ABI.inPlace() : b.in(send, extent(sendCounts, sendDisplacements, type));
            MemorySegment sc = inPlace ? MemorySegment.NULL : b.ints(sendCounts);
            MemorySegment sd = inPlace ? MemorySegment.NULL : b.ints(sendDisplacements);
            MemorySegment rc = b.ints(recvCounts);
            MemorySegment rd = b.ints(recvDisplacements);
            MemorySegment into = b.out(recv, extent(recvCounts, recvDisplacements, type), inPlace);
            return r -> (int) Mpi.IALLTOALLV.invokeExact(s, sc, sd, a.type(), into, rc, rd, a.type(), a.comm(), r);
        });
    }

    @Override
    public Request ireduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        Call a = reduction(mpi(channel), type, op, count);
        boolean isRoot = a.on().rank() == root;
        return start("MPI_Ireduce", b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment into = isRoot ? b.out(recv, a.bytes(), send == Communicator.IN_PLACE) : MemorySegment.NULL;
            return r -> (int) Mpi.IREDUCE.invokeExact(s, into, a.count(), a.type(), a.op(), root, a.comm(), r);
        });
    }

    @Override
    public Request iallreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return everyRankReceives("MPI_Iallreduce", Mpi.IALLREDUCE, mpi(channel), send, recv, count, type, op);
    }

    /** {@code MPI_Iallreduce} or {@code MPI_Iscan}: one signature, every rank's result as long as its contribution. */
    private Request everyRankReceives(String call, MethodHandle function, MpiCommunicator c, MemorySegment send, MemorySegment recv,
                                      long count, Datatype type, Op op) {
        Call a = reduction(c, type, op, count);
        return start(call, b -> {
            MemorySegment s = b.in(send, a.bytes());
            MemorySegment into = b.out(recv, a.bytes(), send == Communicator.IN_PLACE);
            return r -> (int) function.invokeExact(s, into, a.count(), a.type(), a.op(), a.comm(), r);
        });
    }

    @Override
    public Request ireduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        Call a = reduction(mpi(channel), type, op, 0);
        long total = 0;
        for (long k : recvCounts) {
            total += k;
        }
        boolean inPlace = send == Communicator.IN_PLACE;
        long totalBytes = type.byteLength(total);
        long ownBytes = type.byteLength(recvCounts[a.on().rank()]);
        return start("MPI_Ireduce_scatter", b -> {
            MemorySegment s = b.in(send, totalBytes);
            MemorySegment counts = b.ints(recvCounts);
            MemorySegment into = b.out(recv, inPlace ? totalBytes : ownBytes, inPlace);
            return r -> (int) Mpi.IREDUCE_SCATTER.invokeExact(s, into, counts, a.type(), a.op(), a.comm(), r);
        });
    }

    @Override
    public Request ireduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        Call a = reduction(mpi(channel), type, op, recvCount);
        boolean inPlace = send == Communicator.IN_PLACE;
        return start("MPI_Ireduce_scatter_block", b -> {
            MemorySegment s = b.in(send, a.bytes() * a.on().size());
            MemorySegment into = b.out(recv, inPlace ? a.bytes() * a.on().size() : a.bytes(), inPlace);
            return r -> (int) Mpi.IREDUCE_SCATTER_BLOCK.invokeExact(s, into, a.count(), a.type(), a.op(), a.comm(), r);
        });
    }

    @Override
    public Request iscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return everyRankReceives("MPI_Iscan", Mpi.ISCAN, mpi(channel), send, recv, count, type, op);
    }

    /** Rank 0's receive buffer is left untouched, as the API promises (MPI leaves it undefined): it receives into scratch. */
    @Override
    public Request iexscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        Call a = reduction(mpi(channel), type, op, count);
        boolean inPlace = send == Communicator.IN_PLACE;
        boolean first = a.on().rank() == 0;
        return start("MPI_Iexscan", b -> {
            MemorySegment s;
            MemorySegment into;
            if (first) {
                s = inPlace ? (a.bytes() == 0 ? MemorySegment.NULL : b.copy(recv, a.bytes())) : b.in(send, a.bytes());
                into = b.scratch(a.bytes());
            } else {
                s = b.in(send, a.bytes());
                into = b.out(recv, a.bytes(), inPlace);
            }
            return r -> (int) Mpi.IEXSCAN.invokeExact(s, into, a.count(), a.type(), a.op(), a.comm(), r);
        });
    }
}
