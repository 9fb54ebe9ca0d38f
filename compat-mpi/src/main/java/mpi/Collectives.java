package mpi;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * The collectives of {@link Comm} and {@link Intracomm} over Lockstep's, blocking or started
 * (the {@code i…} forms, which return a {@link Request}). Collectives that only move data use
 * Lockstep's general forms, each side with its own count and datatype, so both sides may name
 * their data differently (MPI's type matching) and derived datatypes travel as such; reductions
 * keep their datatype, which the operation needs. Arguments MPI calls insignificant at a rank are
 * not looked at there. The forms "in place" use {@link Communicator#IN_PLACE}.
 */
final class Collectives {
    private static final MemorySegment IN_PLACE = Communicator.IN_PLACE;
    /** A zero-length buffer for a receive buffer MPI says is not significant on this rank. */
    private static final MemorySegment NOT_SIGNIFICANT = MemorySegment.ofArray(new byte[0]);

    private final Comm comm;

    Collectives(Comm comm) {
        this.comm = comm;
    }

    /** The blocking form of a collective. */
    @FunctionalInterface
    interface Blocking {
        void run();
    }

    /** The started form of the same collective. */
    @FunctionalInterface
    interface Started {
        org.lockstep.api.Request start();
    }

    /**
     * Runs the blocking form and writes a boolean array back, or starts the other form and returns
     * its request (the started forms take java.nio buffers, which need no writing back).
     */
    Request run(String call, boolean start, Object recvbuf, MemorySegment recv, Blocking blocking, Started started)
            throws MPIException {
        try {
            if (start) {
                return new Request(comm, call, started.start());
            }
            blocking.run();
            if (recv != null && recv != IN_PLACE) {
                Buffers.copyBack(recvbuf, recv);
            }
            return null;
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** {@code count} elements of {@code type} as a count of {@link Datatype#unit()}, after MPI's checks. */
    static long count(String call, int count, Datatype type) throws MPIException {
        if (type == null) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, "the datatype is null");
        }
        return type.wireCount(call, count) / type.wirePerElement;
    }

    static long[] counts(String call, int[] counts, Datatype type, int ranks) throws MPIException {
        long[] wide = widen(call, counts, ranks);
        for (long c : wide) {
            count(call, (int) c, type);
        }
        return wide;
    }

    static long[] widen(String call, int[] values, int ranks) throws MPIException {
        if (values == null || values.length < ranks) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "an array of counts or displacements is null or has fewer than "
                    + ranks + " entries");
        }
        long[] wide = new long[ranks];
        for (int i = 0; i < ranks; i++) {
            wide[i] = values[i];
        }
        return wide;
    }

    static org.lockstep.api.Datatype unit(Datatype type) {
        return type == null ? null : type.unit();
    }

    /** Whether this rank is a rooted collective's root: in an intercommunicator, the rank that passes {@code MPI.ROOT}. */
    private boolean atRoot(Communicator c, int root) {
        return comm instanceof Intercomm ? root == MPI.ROOT : c.rank() == root;
    }

    /**
     * Whether this rank's data goes to or comes from the root: every rank of an intracommunicator
     * (the root's own block, unless in place), the other group's ranks of an intercommunicator.
     */
    private boolean exchangesWithRoot(boolean atRoot, Object ownBuffer, int root) {
        if (comm instanceof Intercomm) {
            return root >= 0;
        }
        return !atRoot || ownBuffer != null;
    }

    /** The root's own block in place ({@code MPI.IN_PLACE}), which only an intracommunicator's root may ask for. */
    private boolean inPlaceAtRoot(boolean atRoot, Object ownBuffer) {
        return atRoot && ownBuffer == null && !(comm instanceof Intercomm);
    }

    /** A null {@code sendbuf} at the root is the in-place form; the receive side counts at the root only. */
    Request gather(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                   Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = atRoot(c, root);
        long rn = isRoot ? count(call, recvcount, recvtype) : 0;
        boolean inPlace = inPlaceAtRoot(isRoot, sendbuf);
        boolean sends = exchangesWithRoot(isRoot, sendbuf, root);
        MemorySegment send = inPlace ? IN_PLACE : sends ? Buffers.segment(sendbuf, call) : null;
        long sn = inPlace ? rn : sends ? count(call, sendcount, sendtype) : 0;
        org.lockstep.api.Datatype st = unit(inPlace ? recvtype : sends ? sendtype : null);
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : null;
        org.lockstep.api.Datatype rt = isRoot ? unit(recvtype) : null;
        return run(call, start, recvbuf, recv, () -> c.gather(send, sn, st, recv, rn, rt, root),
                () -> c.igather(send, sn, st, recv, rn, rt, root));
    }

    /** At the root {@code buf} receives and holds the root's block already; elsewhere it is what the rank sends. */
    Request gatherInPlace(String call, boolean start, Object buf, int count, Datatype type, int root) throws MPIException {
        return comm.live(call).rank() == root ? gather(call, start, null, 0, null, buf, count, type, root)
                : gather(call, start, buf, count, type, null, 0, null, root);
    }

    /** A null {@code sendbuf} at the root is the in-place form; the receive arguments count at the root only. */
    Request gatherv(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                    Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = atRoot(c, root);
        long[] counts = isRoot ? counts(call, recvcount, recvtype, c.size()) : null;
        long[] displacements = isRoot ? widen(call, displs, c.size()) : null;
        boolean inPlace = inPlaceAtRoot(isRoot, sendbuf);
        boolean sends = exchangesWithRoot(isRoot, sendbuf, root);
        MemorySegment send = inPlace ? IN_PLACE : sends ? Buffers.segment(sendbuf, call) : null;
        long sn = inPlace ? counts[root] : sends ? count(call, sendcount, sendtype) : 0;
        org.lockstep.api.Datatype st = unit(inPlace ? recvtype : sends ? sendtype : null);
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : null;
        org.lockstep.api.Datatype rt = isRoot ? unit(recvtype) : null;
        return run(call, start, recvbuf, recv, () -> c.gatherv(send, sn, st, recv, counts, displacements, rt, root),
                () -> c.igatherv(send, sn, st, recv, counts, displacements, rt, root));
    }

    /** A null {@code recvbuf} at the root is the in-place form; the send side counts at the root only. */
    Request scatter(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                    Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = atRoot(c, root);
        long sn = isRoot ? count(call, sendcount, sendtype) : 0;
        MemorySegment send = isRoot ? Buffers.segment(sendbuf, call) : null;
        org.lockstep.api.Datatype st = isRoot ? unit(sendtype) : null;
        boolean inPlace = inPlaceAtRoot(isRoot, recvbuf);
        boolean receives = exchangesWithRoot(isRoot, recvbuf, root);
        MemorySegment recv = inPlace ? IN_PLACE : receives ? Buffers.segment(recvbuf, call) : null;
        long rn = inPlace ? sn : receives ? count(call, recvcount, recvtype) : 0;
        org.lockstep.api.Datatype rt = unit(inPlace ? sendtype : receives ? recvtype : null);
        return run(call, start, recvbuf, recv, () -> c.scatter(send, sn, st, recv, rn, rt, root),
                () -> c.iscatter(send, sn, st, recv, rn, rt, root));
    }

    /** At the root {@code buf} is what it scatters, keeping its own block; elsewhere it receives. */
    Request scatterInPlace(String call, boolean start, Object buf, int count, Datatype type, int root) throws MPIException {
        return comm.live(call).rank() == root ? scatter(call, start, buf, count, type, null, 0, null, root)
                : scatter(call, start, null, 0, null, buf, count, type, root);
    }

    /** A null {@code recvbuf} at the root is the in-place form; the send arguments count at the root only. */
    Request scatterv(String call, boolean start, Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype,
                     Object recvbuf, int recvcount, Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = atRoot(c, root);
        long[] counts = isRoot ? counts(call, sendcount, sendtype, c.size()) : null;
        long[] displacements = isRoot ? widen(call, displs, c.size()) : null;
        MemorySegment send = isRoot ? Buffers.segment(sendbuf, call) : null;
        org.lockstep.api.Datatype st = isRoot ? unit(sendtype) : null;
        boolean inPlace = inPlaceAtRoot(isRoot, recvbuf);
        boolean receives = exchangesWithRoot(isRoot, recvbuf, root);
        MemorySegment recv = inPlace ? IN_PLACE : receives ? Buffers.segment(recvbuf, call) : null;
        long rn = inPlace ? counts[root] : receives ? count(call, recvcount, recvtype) : 0;
        org.lockstep.api.Datatype rt = unit(inPlace ? sendtype : receives ? recvtype : null);
        return run(call, start, recvbuf, recv, () -> c.scatterv(send, counts, displacements, st, recv, rn, rt, root),
                () -> c.iscatterv(send, counts, displacements, st, recv, rn, rt, root));
    }

    /** A null {@code sendbuf} is the in-place form. */
    Request allGather(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                      Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        long rn = count(call, recvcount, recvtype);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        long sn = sendbuf == null ? rn : count(call, sendcount, sendtype);
        org.lockstep.api.Datatype st = unit(sendbuf == null ? recvtype : sendtype);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        org.lockstep.api.Datatype rt = unit(recvtype);
        return run(call, start, recvbuf, recv, () -> c.allgather(send, sn, st, recv, rn, rt),
                () -> c.iallgather(send, sn, st, recv, rn, rt));
    }

    /** A null {@code sendbuf} is the in-place form. */
    Request allGatherv(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                       Object recvbuf, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        long[] counts = counts(call, recvcount, recvtype, c.size());
        long[] displacements = widen(call, displs, c.size());
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        long sn = sendbuf == null ? counts[c.rank()] : count(call, sendcount, sendtype);
        org.lockstep.api.Datatype st = unit(sendbuf == null ? recvtype : sendtype);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        org.lockstep.api.Datatype rt = unit(recvtype);
        return run(call, start, recvbuf, recv, () -> c.allgatherv(send, sn, st, recv, counts, displacements, rt),
                () -> c.iallgatherv(send, sn, st, recv, counts, displacements, rt));
    }

    Request allToAll(String call, boolean start, Object sendbuf, int sendcount, Datatype sendtype,
                     Object recvbuf, int recvcount, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        Fixed x = Fixed.of(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
        return run(call, start, recvbuf, x.recv(), () -> c.alltoall(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(),
                x.recvType()), () -> c.ialltoall(x.send(), x.sendCount(), x.sendType(), x.recv(), x.recvCount(), x.recvType()));
    }

    /** The two sides of an exchange with one count and datatype a side, converted for Lockstep. */
    record Fixed(MemorySegment send, long sendCount, org.lockstep.api.Datatype sendType, MemorySegment recv, long recvCount,
                 org.lockstep.api.Datatype recvType) {
        static Fixed of(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
                throws MPIException {
            return new Fixed(Buffers.segment(sendbuf, call), count(call, sendcount, sendtype), unit(sendtype),
                    Buffers.segment(recvbuf, call), count(call, recvcount, recvtype), unit(recvtype));
        }
    }

    /** The two sides of an exchange with a count and displacement a block, {@code sendBlocks} and {@code recvBlocks} of them. */
    record Varying(MemorySegment send, long[] sendCounts, long[] sendDispls, org.lockstep.api.Datatype sendType, MemorySegment recv,
                   long[] recvCounts, long[] recvDispls, org.lockstep.api.Datatype recvType) {
        static Varying of(String call, Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype, int sendBlocks,
                          Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype, int recvBlocks) throws MPIException {
            return new Varying(Buffers.segment(sendbuf, call), counts(call, sendcount, sendtype, sendBlocks), widen(call, sdispls, sendBlocks),
                    unit(sendtype), Buffers.segment(recvbuf, call), counts(call, recvcount, recvtype, recvBlocks),
                    widen(call, rdispls, recvBlocks), unit(recvtype));
        }
    }

    Request allToAllv(String call, boolean start, Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                      Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        Varying x = Varying.of(call, sendbuf, sendcount, sdispls, sendtype, c.size(), recvbuf, recvcount, rdispls, recvtype, c.size());
        return run(call, start, recvbuf, x.recv(), () -> c.alltoallv(x.send(), x.sendCounts(), x.sendDispls(), x.sendType(), x.recv(),
                x.recvCounts(), x.recvDispls(), x.recvType()), () -> c.ialltoallv(x.send(), x.sendCounts(), x.sendDispls(), x.sendType(),
                x.recv(), x.recvCounts(), x.recvDispls(), x.recvType()));
    }

    /** A datatype per peer and byte displacements, as Lockstep's alltoallw takes them. */
    Request allToAllw(String call, boolean start, Object sendbuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                      Object recvbuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        Communicator c = comm.live(call);
        int size = c.size();
        if (sendTypes == null || recvTypes == null || sendTypes.length < size || recvTypes.length < size) {
            throw comm.fail(ErrorClasses.argument(ErrorClasses.ARG, call, "the arrays of datatypes need an entry per rank (" + size + ")"));
        }
        long[] sn = widen(call, sendCount, size);
        long[] rn = widen(call, recvCount, size);
        org.lockstep.api.Datatype[] st = new org.lockstep.api.Datatype[size];
        org.lockstep.api.Datatype[] rt = new org.lockstep.api.Datatype[size];
        for (int i = 0; i < size; i++) {
            count(call, sendCount[i], sendTypes[i]);
            count(call, recvCount[i], recvTypes[i]);
            st[i] = unit(sendTypes[i]);
            rt[i] = unit(recvTypes[i]);
        }
        long[] sd = widen(call, sDispls, size);
        long[] rd = widen(call, rDispls, size);
        MemorySegment send = Buffers.segment(sendbuf, call);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        return run(call, start, recvbuf, recv, () -> c.alltoallw(send, sn, sd, st, recv, rn, rd, rt),
                () -> c.ialltoallw(send, sn, sd, st, recv, rn, rd, rt));
    }

    /** Lockstep's operation for a reduction of {@code type}, or why there is none. */
    private org.lockstep.api.Op operation(String call, Op op, Datatype type) throws MPIException {
        op.checkUsable(call);
        boolean complex = type.kind == Datatype.FLOAT_COMPLEX || type.kind == Datatype.DOUBLE_COMPLEX;
        if (complex && op != MPI.SUM && op != MPI.REPLACE && op != MPI.NO_OP) {
            throw comm.fail(ErrorClasses.unsupported(call, op + " on " + type
                    + ": Lockstep's reductions have no complex arithmetic (only SUM, REPLACE and NO_OP, element by element)"));
        }
        return op.forType(type);
    }

    /** A null {@code sendbuf} is the in-place form at the root; {@code recvbuf} counts at the root only. */
    Request reduce(String call, boolean start, Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        boolean isRoot = atRoot(c, root);
        MemorySegment send = inPlaceAtRoot(isRoot, sendbuf) ? IN_PLACE
                : exchangesWithRoot(isRoot, sendbuf, root) ? Buffers.segment(sendbuf, call) : NOT_SIGNIFICANT;
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : NOT_SIGNIFICANT;
        return run(call, start, recvbuf, isRoot ? recv : null, () -> c.reduce(send, recv, n, type.wire, operation, root),
                () -> c.ireduce(send, recv, n, type.wire, operation, root));
    }

    /** At the root the contribution is in {@code buf} and the result goes there; elsewhere {@code buf} is the contribution. */
    Request reduceInPlace(String call, boolean start, Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        return comm.live(call).rank() == root ? reduce(call, start, null, buf, count, type, op, root)
                : reduce(call, start, buf, null, count, type, op, root);
    }

    /** A null {@code sendbuf} is the in-place form. */
    Request allReduce(String call, boolean start, Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        return run(call, start, recvbuf, recv, () -> c.allreduce(send, recv, n, type.wire, operation),
                () -> c.iallreduce(send, recv, n, type.wire, operation));
    }

    /** A null {@code sendbuf} is the in-place form. */
    Request reduceScatter(String call, boolean start, Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op)
            throws MPIException {
        Communicator c = comm.live(call);
        long[] counts = widen(call, recvcounts, c.size());
        for (int i = 0; i < counts.length; i++) {
            counts[i] = type.wireCount(call, recvcounts[i]);
        }
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        return run(call, start, recvbuf, recv, () -> c.reduceScatter(send, recv, counts, type.wire, operation),
                () -> c.ireduceScatter(send, recv, counts, type.wire, operation));
    }

    /** A null {@code sendbuf} is the in-place form. */
    Request reduceScatterBlock(String call, boolean start, Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, recvcount);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        return run(call, start, recvbuf, recv, () -> c.reduceScatterBlock(send, recv, n, type.wire, operation),
                () -> c.ireduceScatterBlock(send, recv, n, type.wire, operation));
    }

    /** A null {@code sendbuf} is the in-place form; {@code exclusive} chooses exscan. */
    Request scan(String call, boolean start, boolean exclusive, Object sendbuf, Object recvbuf, int count, Datatype type, Op op)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        if (exclusive) {
            return run(call, start, recvbuf, recv, () -> c.exscan(send, recv, n, type.wire, operation),
                    () -> c.iexscan(send, recv, n, type.wire, operation));
        }
        return run(call, start, recvbuf, recv, () -> c.scan(send, recv, n, type.wire, operation),
                () -> c.iscan(send, recv, n, type.wire, operation));
    }

    static void reduceLocal(Object inBuf, Object inOutBuf, int count, Datatype type, Op op) throws MPIException {
        String call = "Comm.reduceLocal";
        op.checkUsable(call);
        long n = type.wireCount(call, count);
        MemorySegment inOut = Buffers.segment(inOutBuf, call);
        try {
            op.forType(type).apply(Buffers.segment(inBuf, call), inOut, n, type.wire);
            Buffers.copyBack(inOutBuf, inOut);
        } catch (LockstepException e) {
            throw MPI.COMM_WORLD.fail(call, e);
        }
    }
}
