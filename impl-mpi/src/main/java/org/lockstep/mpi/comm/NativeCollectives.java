package org.lockstep.mpi.comm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.mpi.binding.Mpi;

/**
 * Every collective of the API as the library's own ({@code MPI_Bcast}, {@code MPI_Allreduce}, ...),
 * on the communicator's native handle, with the element's MPI type so that the library's
 * algorithms and reductions apply. Arguments were checked by the communicator; counts beyond
 * {@code int} are refused with {@link ErrorClass#COUNT}. The non-blocking ones are the library's
 * too ({@link NativeNonBlockingCollectives}).
 */
final class NativeCollectives extends NativeNonBlockingCollectives {
    NativeCollectives(MpiSession session) {
        super(session);
    }

    @Override
    public void barrier(Communicator channel) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        c.call(() -> (int) Mpi.BARRIER.invokeExact(h), "MPI_Barrier");
    }

    @Override
    public void bcast(Communicator channel, MemorySegment buffer, long count, Datatype type, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment b = c.rank() == root ? st.in(0, buffer, bytes) : st.out(0, buffer, bytes, false);
        c.call(() -> (int) Mpi.BCAST.invokeExact(b, n, t, root, h), "MPI_Bcast");
        st.finish();
    }

    @Override
    public void gather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = c.rank() == root ? st.out(1, recv, bytes * c.size(), send == Communicator.IN_PLACE) : MemorySegment.NULL;
        c.call(() -> (int) Mpi.GATHER.invokeExact(s, n, t, r, n, t, root, h), "MPI_Gather");
        st.finish();
    }

    @Override
    public void gatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                        long[] recvCounts, long[] displacements, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(sendCount);
        boolean isRoot = c.rank() == root;
        try (Arena arena = Arena.ofConfined()) {
            Staging st = new Staging();
            MemorySegment s = st.in(0, send, type.byteLength(sendCount));
            MemorySegment counts = isRoot ? ints(arena, recvCounts) : MemorySegment.NULL;
            MemorySegment displs = isRoot ? ints(arena, displacements) : MemorySegment.NULL;
            MemorySegment r = isRoot ? st.out(1, recv, extent(recvCounts, displacements, type), send == Communicator.IN_PLACE)
                    : MemorySegment.NULL;
            c.call(() -> (int) Mpi.GATHERV.invokeExact(s, n, t, r, counts, displs, t, root, h), "MPI_Gatherv");
            st.finish();
        }
    }

    @Override
    public void scatter(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = c.rank() == root ? st.in(0, send, bytes * c.size()) : MemorySegment.NULL;
        MemorySegment r = recv == Communicator.IN_PLACE ? Mpi.ABI.inPlace() : st.out(1, recv, bytes, false);
        c.call(() -> (int) Mpi.SCATTER.invokeExact(s, n, t, r, n, t, root, h), "MPI_Scatter");
        st.finish();
    }

    @Override
    public void scatterv(Communicator channel, MemorySegment send, long[] sendCounts, long[] displacements, Datatype type,
                         MemorySegment recv, long recvCount, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(recvCount);
        boolean isRoot = c.rank() == root;
        try (Arena arena = Arena.ofConfined()) {
            Staging st = new Staging();
            MemorySegment s = isRoot ? st.in(0, send, extent(sendCounts, displacements, type)) : MemorySegment.NULL;
            MemorySegment counts = isRoot ? ints(arena, sendCounts) : MemorySegment.NULL;
            MemorySegment displs = isRoot ? ints(arena, displacements) : MemorySegment.NULL;
            MemorySegment r = recv == Communicator.IN_PLACE ? Mpi.ABI.inPlace() : st.out(1, recv, type.byteLength(recvCount), false);
            c.call(() -> (int) Mpi.SCATTERV.invokeExact(s, counts, displs, t, r, n, t, root, h), "MPI_Scatterv");
            st.finish();
        }
    }

    @Override
    public void allgather(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = st.out(1, recv, bytes * c.size(), send == Communicator.IN_PLACE);
        c.call(() -> (int) Mpi.ALLGATHER.invokeExact(s, n, t, r, n, t, h), "MPI_Allgather");
        st.finish();
    }

    @Override
    public void allgatherv(Communicator channel, MemorySegment send, long sendCount, Datatype type, MemorySegment recv,
                           long[] recvCounts, long[] displacements) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(sendCount);
        try (Arena arena = Arena.ofConfined()) {
            Staging st = new Staging();
            MemorySegment s = st.in(0, send, type.byteLength(sendCount));
            MemorySegment counts = ints(arena, recvCounts);
            MemorySegment displs = ints(arena, displacements);
            MemorySegment r = st.out(1, recv, extent(recvCounts, displacements, type), send == Communicator.IN_PLACE);
            c.call(() -> (int) Mpi.ALLGATHERV.invokeExact(s, n, t, r, counts, displs, t, h), "MPI_Allgatherv");
            st.finish();
        }
    }

    @Override
    public void alltoall(Communicator channel, MemorySegment send, long count, Datatype type, MemorySegment recv) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        int n = count(count);
        long bytes = type.byteLength(count) * c.size();
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = st.out(1, recv, bytes, send == Communicator.IN_PLACE);
        c.call(() -> (int) Mpi.ALLTOALL.invokeExact(s, n, t, r, n, t, h), "MPI_Alltoall");
        st.finish();
    }

    @Override
    public void alltoallv(Communicator channel, MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type,
                          MemorySegment recv, long[] recvCounts, long[] recvDisplacements) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().of(type);
        boolean inPlace = send == Communicator.IN_PLACE;
        try (Arena arena = Arena.ofConfined()) {
            Staging st = new Staging();
            MemorySegment s = inPlace ? Mpi.ABI.inPlace() : st.in(0, send, extent(sendCounts, sendDisplacements, type));
            MemorySegment sc = inPlace ? MemorySegment.NULL : ints(arena, sendCounts);
            MemorySegment sd = inPlace ? MemorySegment.NULL : ints(arena, sendDisplacements);
            MemorySegment rc = ints(arena, recvCounts);
            MemorySegment rd = ints(arena, recvDisplacements);
            MemorySegment r = st.out(1, recv, extent(recvCounts, recvDisplacements, type), inPlace);
            c.call(() -> (int) Mpi.ALLTOALLV.invokeExact(s, sc, sd, t, r, rc, rd, t, h), "MPI_Alltoallv");
            st.finish();
        }
    }

    @Override
    public void reduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = c.rank() == root ? st.out(1, recv, bytes, send == Communicator.IN_PLACE) : MemorySegment.NULL;
        c.call(() -> (int) Mpi.REDUCE.invokeExact(s, r, n, t, o, root, h), "MPI_Reduce");
        st.finish();
    }

    @Override
    public void allreduce(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = st.out(1, recv, bytes, send == Communicator.IN_PLACE);
        c.call(() -> (int) Mpi.ALLREDUCE.invokeExact(s, r, n, t, o, h), "MPI_Allreduce");
        st.finish();
    }

    @Override
    public void reduceScatter(Communicator channel, MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        long total = 0;
        for (long k : recvCounts) {
            total += k;
        }
        boolean inPlace = send == Communicator.IN_PLACE;
        long totalBytes = type.byteLength(total);
        try (Arena arena = Arena.ofConfined()) {
            Staging st = new Staging();
            MemorySegment s = st.in(0, send, totalBytes);
            MemorySegment counts = ints(arena, recvCounts);
            MemorySegment r = st.out(1, recv, inPlace ? totalBytes : type.byteLength(recvCounts[c.rank()]), inPlace);
            c.call(() -> (int) Mpi.REDUCE_SCATTER.invokeExact(s, r, counts, t, o, h), "MPI_Reduce_scatter");
            st.finish();
        }
    }

    @Override
    public void reduceScatterBlock(Communicator channel, MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        int n = count(recvCount);
        long bytes = type.byteLength(recvCount);
        boolean inPlace = send == Communicator.IN_PLACE;
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes * c.size());
        MemorySegment r = st.out(1, recv, inPlace ? bytes * c.size() : bytes, inPlace);
        c.call(() -> (int) Mpi.REDUCE_SCATTER_BLOCK.invokeExact(s, r, n, t, o, h), "MPI_Reduce_scatter_block");
        st.finish();
    }

    @Override
    public void scan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s = st.in(0, send, bytes);
        MemorySegment r = st.out(1, recv, bytes, send == Communicator.IN_PLACE);
        c.call(() -> (int) Mpi.SCAN.invokeExact(s, r, n, t, o, h), "MPI_Scan");
        st.finish();
    }

    /** Rank 0's receive buffer is left untouched, as the API promises (MPI leaves it undefined). */
    @Override
    public void exscan(Communicator channel, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        MpiCommunicator c = mpi(channel);
        long h = c.handle();
        long t = session.types().forReduction(type, op);
        long o = session.types().op(op, type);
        int n = count(count);
        long bytes = type.byteLength(count);
        Staging st = new Staging();
        MemorySegment s;
        MemorySegment r;
        if (c.rank() == 0) {
            s = send == Communicator.IN_PLACE ? st.in(0, copyOf(recv, bytes), bytes) : st.in(0, send, bytes);
            r = st.discard(1, bytes);
        } else {
            s = st.in(0, send, bytes);
            r = st.out(1, recv, bytes, send == Communicator.IN_PLACE);
        }
        c.call(() -> (int) Mpi.EXSCAN.invokeExact(s, r, n, t, o, h), "MPI_Exscan");
        if (c.rank() != 0) {
            st.finish();
        }
    }

    // ---------------------------------------------------------------- helpers

    private static MemorySegment copyOf(MemorySegment buffer, long bytes) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) bytes]);
        MemorySegment.copy(buffer, 0, copy, 0, bytes);
        return copy;
    }

    /** An element count as MPI's {@code int}. */
    static int count(long count) {
        if (count > Integer.MAX_VALUE) {
            throw new LockstepException(ErrorClass.COUNT, "count " + count + " is above the 2^31-1 elements an MPI count can carry");
        }
        return (int) count;
    }

    private static MemorySegment ints(Arena arena, long[] values) {
        MemorySegment out = arena.allocate(ValueLayout.JAVA_INT, values.length);
        for (int i = 0; i < values.length; i++) {
            out.setAtIndex(ValueLayout.JAVA_INT, i, count(values[i]));
        }
        return out;
    }

    /** Bytes from the start of a buffer to the end of its last block. */
    static long extent(long[] counts, long[] displacements, Datatype type) {
        long end = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                end = Math.max(end, displacements[i] + counts[i]);
            }
        }
        return type.byteLength(end);
    }
}
