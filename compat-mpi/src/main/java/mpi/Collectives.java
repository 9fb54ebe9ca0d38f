package mpi;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * The collectives of {@link Comm} and {@link Intracomm} over Lockstep's. Collectives that only
 * move data travel as bytes, so that both sides may name their data with different datatypes of
 * the same length (MPI's type matching) and every rank hands Lockstep the same datatype whatever
 * arguments are not significant on it; reductions keep their datatype, which the operation needs.
 * The forms "in place" use {@link Communicator#IN_PLACE}.
 */
final class Collectives {
    private static final org.lockstep.api.Datatype BYTES = org.lockstep.api.Datatype.BYTE;
    private static final MemorySegment IN_PLACE = Communicator.IN_PLACE;

    private final Comm comm;

    Collectives(Comm comm) {
        this.comm = comm;
    }

    private static long bytes(String call, int count, Datatype type) throws MPIException {
        return Carrier.units(call, BYTES, count, type);
    }

    private static long[] bytes(String call, int[] counts, Datatype type) throws MPIException {
        return Carrier.units(call, BYTES, counts, type);
    }

    private static MemorySegment data(Object buf, String call) throws MPIException {
        return buf == null ? Carrier.NOT_SIGNIFICANT : Buffers.segment(buf, call);
    }

    void gather(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, sendcount, sendtype);
        boolean isRoot = c.rank() == root;
        if (isRoot) {
            Carrier.checkSameLength(call, n, bytes(call, recvcount, recvtype));
        }
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : Carrier.NOT_SIGNIFICANT;
        try {
            c.gather(Buffers.segment(sendbuf, call), n, BYTES, recv, root);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** At the root the block is in place; elsewhere {@code buf} is what the rank sends. */
    void gatherInPlace(String call, Object buf, int count, Datatype type, int root) throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, count, type);
        MemorySegment data = Buffers.segment(buf, call);
        try {
            if (c.rank() == root) {
                c.gather(IN_PLACE, n, BYTES, data, root);
                Buffers.copyBack(buf, data);
            } else {
                c.gather(data, n, BYTES, Carrier.NOT_SIGNIFICANT, root);
            }
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the root's in-place form; null receive arguments, a rank other than the root. */
    void gatherv(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                 Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = c.rank() == root;
        long[] counts = isRoot ? bytes(call, recvcount, recvtype) : null;
        long[] displacements = isRoot ? bytes(call, displs, recvtype) : null;
        MemorySegment send = sendbuf == null && isRoot ? IN_PLACE : Buffers.segment(sendbuf, call);
        long n = send == IN_PLACE ? counts[root] : bytes(call, sendcount, sendtype);
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : Carrier.NOT_SIGNIFICANT;
        try {
            c.gatherv(send, n, BYTES, recv, counts, displacements, root);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    void scatter(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype, int root)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, recvcount, recvtype);
        boolean isRoot = c.rank() == root;
        if (isRoot) {
            Carrier.checkSameLength(call, bytes(call, sendcount, sendtype), n);
        }
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.scatter(isRoot ? Buffers.segment(sendbuf, call) : Carrier.NOT_SIGNIFICANT, n, BYTES, recv, root);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** At the root {@code buf} is what it scatters and keeps its own block; elsewhere it receives. */
    void scatterInPlace(String call, Object buf, int count, Datatype type, int root) throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, count, type);
        MemorySegment data = Buffers.segment(buf, call);
        try {
            if (c.rank() == root) {
                c.scatter(data, n, BYTES, IN_PLACE, root);
            } else {
                c.scatter(Carrier.NOT_SIGNIFICANT, n, BYTES, data, root);
                Buffers.copyBack(buf, data);
            }
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code recvbuf} is the root's in-place form; null send arguments, a rank other than the root. */
    void scatterv(String call, Object sendbuf, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf, int recvcount,
                  Datatype recvtype, int root) throws MPIException {
        Communicator c = comm.live(call);
        boolean isRoot = c.rank() == root;
        long[] counts = isRoot ? bytes(call, sendcount, sendtype) : null;
        long[] displacements = isRoot ? bytes(call, displs, sendtype) : null;
        MemorySegment recv = recvbuf == null && isRoot ? IN_PLACE : Buffers.segment(recvbuf, call);
        long n = recv == IN_PLACE ? counts[root] : bytes(call, recvcount, recvtype);
        try {
            c.scatterv(isRoot ? Buffers.segment(sendbuf, call) : Carrier.NOT_SIGNIFICANT, counts, displacements, BYTES, recv, n, root);
            if (recv != IN_PLACE) {
                Buffers.copyBack(recvbuf, recv);
            }
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form. */
    void allGather(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, recvcount, recvtype);
        if (sendbuf != null) {
            Carrier.checkSameLength(call, bytes(call, sendcount, sendtype), n);
        }
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.allgather(sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call), n, BYTES, recv);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form. */
    void allGatherv(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int[] recvcount, int[] displs,
                    Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        long[] counts = bytes(call, recvcount, recvtype);
        long[] displacements = bytes(call, displs, recvtype);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
            long n = sendbuf == null ? counts[c.rank()] : bytes(call, sendcount, sendtype);
            c.allgatherv(send, n, BYTES, recv, counts, displacements);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    void allToAll(String call, Object sendbuf, int sendcount, Datatype sendtype, Object recvbuf, int recvcount, Datatype recvtype)
            throws MPIException {
        Communicator c = comm.live(call);
        long n = bytes(call, recvcount, recvtype);
        Carrier.checkSameLength(call, bytes(call, sendcount, sendtype), n);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.alltoall(Buffers.segment(sendbuf, call), n, BYTES, recv);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    void allToAllv(String call, Object sendbuf, int[] sendcount, int[] sdispls, Datatype sendtype,
                   Object recvbuf, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        Communicator c = comm.live(call);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.alltoallv(Buffers.segment(sendbuf, call), bytes(call, sendcount, sendtype), bytes(call, sdispls, sendtype), BYTES,
                    recv, bytes(call, recvcount, recvtype), bytes(call, rdispls, recvtype));
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** Alltoallw of predefined datatypes moves byte blocks at byte displacements: an alltoallv of bytes. */
    void allToAllw(String call, Object sendbuf, int[] sendCount, int[] sDispls, Datatype[] sendTypes,
                   Object recvbuf, int[] recvCount, int[] rDispls, Datatype[] recvTypes) throws MPIException {
        Communicator c = comm.live(call);
        int size = c.size();
        if (sendCount.length < size || sDispls.length < size || sendTypes.length < size || recvCount.length < size
                || rDispls.length < size || recvTypes.length < size) {
            throw comm.fail(ErrorClasses.argument(ErrorClasses.ARG, call, "every array needs an entry per rank (" + size + ")"));
        }
        long[] sendBytes = new long[size];
        long[] recvBytes = new long[size];
        long[] sendAt = new long[size];
        long[] recvAt = new long[size];
        for (int i = 0; i < size; i++) {
            sendBytes[i] = bytes(call, sendCount[i], sendTypes[i]);
            recvBytes[i] = bytes(call, recvCount[i], recvTypes[i]);
            sendAt[i] = sDispls[i];
            recvAt[i] = rDispls[i];
        }
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.alltoallv(Buffers.segment(sendbuf, call), sendBytes, sendAt, BYTES, recv, recvBytes, recvAt);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** Lockstep's operation for a reduction of {@code type}, or why there is none. */
    private org.lockstep.api.Op operation(String call, Op op, Datatype type) throws MPIException {
        op.checkUsable(call);
        boolean complex = type.kind == Datatype.FLOAT_COMPLEX || type.kind == Datatype.DOUBLE_COMPLEX;
        if (complex && op != MPI.SUM && op != MPI.REPLACE && op != MPI.NO_OP) {
            throw comm.fail(ErrorClasses.unsupported(call, op + " on " + type
                    + " needs complex arithmetic, which comes with derived datatypes in Lockstep's API (issue 15)"));
        }
        return op.forType(type);
    }

    void reduce(String call, Object sendbuf, Object recvbuf, int count, Datatype type, Op op, int root) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        boolean isRoot = c.rank() == root;
        MemorySegment recv = isRoot ? Buffers.segment(recvbuf, call) : data(recvbuf, call);
        try {
            c.reduce(Buffers.segment(sendbuf, call), recv, n, type.wire, operation, root);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** At the root the contribution is in {@code buf} and the result goes there; elsewhere {@code buf} is the contribution. */
    void reduceInPlace(String call, Object buf, int count, Datatype type, Op op, int root) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment data = Buffers.segment(buf, call);
        try {
            if (c.rank() == root) {
                c.reduce(IN_PLACE, data, n, type.wire, operation, root);
                Buffers.copyBack(buf, data);
            } else {
                c.reduce(data, Carrier.NOT_SIGNIFICANT, n, type.wire, operation, root);
            }
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form. */
    void allReduce(String call, Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.allreduce(sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call), recv, n, type.wire, operation);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    Request iAllReduce(String call, java.nio.Buffer sendbuf, java.nio.Buffer recvbuf, int count, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        try {
            return new Request(comm, call, c.iallreduce(sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call),
                    Buffers.segment(recvbuf, call), n, type.wire, operation));
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form. */
    void reduceScatter(String call, Object sendbuf, Object recvbuf, int[] recvcounts, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long[] counts = new long[recvcounts.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = type.wireCount(call, recvcounts[i]);
        }
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.reduceScatter(sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call), recv, counts, type.wire, operation);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form. */
    void reduceScatterBlock(String call, Object sendbuf, Object recvbuf, int recvcount, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, recvcount);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        try {
            c.reduceScatterBlock(sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call), recv, n, type.wire, operation);
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
    }

    /** A null {@code sendbuf} is the in-place form; {@code exclusive} chooses exscan. */
    void scan(String call, boolean exclusive, Object sendbuf, Object recvbuf, int count, Datatype type, Op op) throws MPIException {
        Communicator c = comm.live(call);
        long n = type.wireCount(call, count);
        org.lockstep.api.Op operation = operation(call, op, type);
        MemorySegment recv = Buffers.segment(recvbuf, call);
        MemorySegment send = sendbuf == null ? IN_PLACE : Buffers.segment(sendbuf, call);
        try {
            if (exclusive) {
                c.exscan(send, recv, n, type.wire, operation);
            } else {
                c.scan(send, recv, n, type.wire, operation);
            }
            Buffers.copyBack(recvbuf, recv);
        } catch (LockstepException e) {
            throw comm.fail(call, e);
        }
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
