package org.lockstep.spi.collective;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.Intercommunicator;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;

/**
 * The collectives of a {@link BridgedIntercommunicator}, by MPI 4.1 §6.2.2's rules: data flows
 * from one group to the other; in a rooted collective the root passes {@link Intercommunicator#ROOT},
 * the rest of its group {@link Communicator#PROC_NULL}, the other group the root's rank. They run on
 * two private channels: {@code crossing}, a duplicate of the bridge, for the messages between the
 * groups (remote rank r is bridge rank {@code remoteOffset + r}); {@code inside}, a duplicate of the
 * local communicator, for the steps within a group. Rooted collectives of one block a rank cross
 * once, between the root and the other group's rank 0, and spread by the group's own collective;
 * the vector forms, whose counts only one side knows, cross rank to rank; the reductions reduce
 * inside each group, exchange the two partial results between the groups' ranks 0, and spread
 * the other group's inside.
 */
final class IntercommunicatorCollectives {
    /** The one tag of the cross-group messages: each pair's come and go in the collectives' common order. */
    static final int CROSSING = 0;
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private final int rank;
    private final int size;
    private final int remoteSize;
    private final int remoteOffset;
    private final Communicator crossing;
    private final Communicator inside;

    IntercommunicatorCollectives(int rank, int size, int remoteSize, int remoteOffset, Communicator crossing, Communicator inside) {
        this.rank = rank;
        this.size = size;
        this.remoteSize = remoteSize;
        this.remoteOffset = remoteOffset;
        this.crossing = crossing;
        this.inside = inside;
    }

    /** The crossing channel's rank of remote rank {@code r}. */
    private int remote(int r) {
        return remoteOffset + r;
    }

    /** Checks a rooted collective's root: ROOT or PROC_NULL in the root's group, a remote rank in the other. */
    private void checkRoot(int root) {
        checkRoot(root, remoteSize);
    }

    /** The root check of every collective across groups, blocking or not. */
    static void checkRoot(int root, int remoteSize) {
        if (root != Intercommunicator.ROOT && root != Communicator.PROC_NULL && (root < 0 || root >= remoteSize)) {
            throw new LockstepException(ErrorClass.ROOT, "root " + root + " is not ROOT, PROC_NULL nor a remote rank in [0, "
                    + remoteSize + ")");
        }
    }

    /** MPI has no in-place form of a collective across two groups. */
    static void notInPlace(MemorySegment buffer, String what) {
        if (buffer == Communicator.IN_PLACE) {
            throw new LockstepException(ErrorClass.BUFFER, what + " is IN_PLACE, which an intercommunicator's collectives do not take");
        }
    }

    private static MemorySegment scratch(long bytes) {
        return Arena.ofAuto().allocate(Math.max(bytes, 1), 8).asSlice(0, bytes);
    }

    void barrier() {
        crossing.barrier();
    }

    void bcast(MemorySegment buffer, long count, Datatype type, int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            crossing.send(buffer, count, type, remote(0), CROSSING);
        } else if (root != Communicator.PROC_NULL) {
            if (rank == 0) {
                crossing.recv(buffer, count, type, remote(root), CROSSING);
            }
            inside.bcast(buffer, count, type, 0);
        }
    }

    void gather(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            crossing.recv(recv, count * remoteSize, type, remote(0), CROSSING);
        } else if (root != Communicator.PROC_NULL) {
            MemorySegment packed = rank == 0 ? scratch(type.byteLength(count) * size) : null;
            inside.gather(send, count, type, packed, type.byteLength(count), Datatype.BYTE, 0);
            if (rank == 0) {
                crossing.send(packed, packed.byteSize(), Datatype.BYTE, remote(root), CROSSING);
            }
        }
    }

    void scatter(MemorySegment send, long count, Datatype type, MemorySegment recv, int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            crossing.send(send, count * remoteSize, type, remote(0), CROSSING);
        } else if (root != Communicator.PROC_NULL) {
            MemorySegment packed = null;
            if (rank == 0) {
                packed = scratch(type.byteLength(count) * size);
                crossing.recv(packed, packed.byteSize(), Datatype.BYTE, remote(root), CROSSING);
            }
            inside.scatter(packed, type.byteLength(count), Datatype.BYTE, recv, count, type, 0);
        }
    }

    void allgather(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        MemorySegment packed = rank == 0 ? scratch(type.byteLength(count) * size) : null;
        inside.gather(send, count, type, packed, type.byteLength(count), Datatype.BYTE, 0);
        if (rank == 0) {
            crossing.sendrecv(packed, packed.byteSize(), Datatype.BYTE, remote(0), CROSSING,
                    recv, count * remoteSize, type, remote(0), CROSSING);
        }
        inside.bcast(recv, count * remoteSize, type, 0);
    }

    void alltoall(MemorySegment send, long count, Datatype type, MemorySegment recv) {
        long[] counts = new long[remoteSize];
        long[] displacements = new long[remoteSize];
        for (int j = 0; j < remoteSize; j++) {
            counts[j] = count;
            displacements[j] = j * count;
        }
        exchange(blocks(send, displacements, counts, type), counts, types(type), blocks(recv, displacements, counts, type), counts,
                types(type));
    }

    void reduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            crossing.recv(recv, count, type, remote(0), CROSSING);
        } else if (root != Communicator.PROC_NULL) {
            MemorySegment partial = rank == 0 ? scratch(type.span(count)) : null;
            inside.reduce(send, partial, count, type, op, 0);
            if (rank == 0) {
                crossing.send(partial, count, type, remote(root), CROSSING);
            }
        }
    }

    void allreduce(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        MemorySegment partial = rank == 0 ? scratch(type.span(count)) : null;
        inside.reduce(send, partial, count, type, op, 0);
        if (rank == 0) {
            crossing.sendrecv(partial, count, type, remote(0), CROSSING, recv, count, type, remote(0), CROSSING);
        }
        inside.bcast(recv, count, type, 0);
    }

    // ---------------------------------------------------------------- vector forms: rank to rank across

    /** The root receives {@code recvCounts[j]} elements from remote rank j at element displacement {@code displacements[j]}. */
    void gatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements,
                 int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            notInPlace(recv, "gatherv's receive buffer");
            CollectiveArguments.blocks(recv, recvCounts, displacements, type, remoteSize, true, "gatherv receive");
            Request[] requests = new Request[remoteSize];
            for (int j = 0; j < remoteSize; j++) {
                requests[j] = crossing.irecv(block(recv, displacements[j], recvCounts[j], type), recvCounts[j], type, remote(j), CROSSING);
            }
            Request.waitAll(requests);
        } else if (root != Communicator.PROC_NULL) {
            notInPlace(send, "gatherv's send buffer");
            crossing.send(send, sendCount, type, remote(root), CROSSING);
        }
    }

    /** Remote rank j receives the root's {@code sendCounts[j]} elements at element displacement {@code displacements[j]}. */
    void scatterv(MemorySegment send, long[] sendCounts, long[] displacements, Datatype type, MemorySegment recv, long recvCount,
                  int root) {
        checkRoot(root);
        if (root == Intercommunicator.ROOT) {
            notInPlace(send, "scatterv's send buffer");
            CollectiveArguments.blocks(send, sendCounts, displacements, type, remoteSize, false, "scatterv send");
            Request[] requests = new Request[remoteSize];
            for (int j = 0; j < remoteSize; j++) {
                requests[j] = crossing.isend(block(send, displacements[j], sendCounts[j], type), sendCounts[j], type, remote(j), CROSSING);
            }
            Request.waitAll(requests);
        } else if (root != Communicator.PROC_NULL) {
            notInPlace(recv, "scatterv's receive buffer");
            crossing.recv(recv, recvCount, type, remote(root), CROSSING);
        }
    }

    /** Every rank receives {@code recvCounts[j]} elements from remote rank j at element displacement {@code displacements[j]}. */
    void allgatherv(MemorySegment send, long sendCount, Datatype type, MemorySegment recv, long[] recvCounts, long[] displacements) {
        notInPlace(send, "allgatherv's send buffer");
        CollectiveArguments.blocks(recv, recvCounts, displacements, type, remoteSize, true, "allgatherv receive");
        long[] sendCounts = new long[remoteSize];
        Arrays.fill(sendCounts, sendCount);
        exchange(blocks(send, new long[remoteSize], sendCounts, type), sendCounts, types(type),
                blocks(recv, displacements, recvCounts, type), recvCounts, types(type));
    }

    void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype type, MemorySegment recv,
                   long[] recvCounts, long[] recvDisplacements) {
        notInPlace(send, "alltoallv's send buffer");
        CollectiveArguments.blocks(send, sendCounts, sendDisplacements, type, remoteSize, false, "alltoallv send");
        CollectiveArguments.blocks(recv, recvCounts, recvDisplacements, type, remoteSize, true, "alltoallv receive");
        exchange(blocks(send, sendDisplacements, sendCounts, type), sendCounts, types(type),
                blocks(recv, recvDisplacements, recvCounts, type), recvCounts, types(type));
    }

    /** Block j, {@code sendCounts[j]} elements of {@code sendTypes[j]} at byte displacement {@code sendDisplacements[j]}, to remote rank j. */
    void alltoallw(MemorySegment send, long[] sendCounts, long[] sendDisplacements, Datatype[] sendTypes, MemorySegment recv,
                   long[] recvCounts, long[] recvDisplacements, Datatype[] recvTypes) {
        notInPlace(send, "alltoallw's send buffer");
        MemorySegment[] into = byteBlocks(recv, recvCounts, recvDisplacements, recvTypes, "alltoallw receive");
        MemorySegment[] from = byteBlocks(send, sendCounts, sendDisplacements, sendTypes, "alltoallw send");
        exchange(from, sendCounts, sendTypes, into, recvCounts, recvTypes);
    }

    /** Receives block j from and sends block j to every remote rank j, all at once. */
    private void exchange(MemorySegment[] from, long[] sendCounts, Datatype[] sendTypes, MemorySegment[] into, long[] recvCounts,
                          Datatype[] recvTypes) {
        List<Request> requests = new ArrayList<>(2 * remoteSize);
        for (int j = 0; j < remoteSize; j++) {
            requests.add(crossing.irecv(into[j], recvCounts[j], recvTypes[j], remote(j), CROSSING));
        }
        for (int j = 0; j < remoteSize; j++) {
            requests.add(crossing.isend(from[j], sendCounts[j], sendTypes[j], remote(j), CROSSING));
        }
        Request.waitAll(requests.toArray(Request[]::new));
    }

    /** {@code type} for every remote rank. */
    private Datatype[] types(Datatype type) {
        Datatype[] all = new Datatype[remoteSize];
        Arrays.fill(all, type);
        return all;
    }

    /** Every remote rank's block of a buffer checked before (element displacements). */
    private MemorySegment[] blocks(MemorySegment buffer, long[] displacements, long[] counts, Datatype type) {
        MemorySegment[] blocks = new MemorySegment[remoteSize];
        for (int j = 0; j < remoteSize; j++) {
            blocks[j] = block(buffer, displacements[j], counts[j], type);
        }
        return blocks;
    }

    /** The block of {@code count} elements at element displacement {@code displacement} (checked before), empty for none. */
    private static MemorySegment block(MemorySegment buffer, long displacement, long count, Datatype type) {
        return count == 0 ? EMPTY : buffer.asSlice(displacement * type.extent());
    }

    /** Each remote rank's block of an alltoallw buffer, checked: a displacement that is negative or past the buffer is an error. */
    private MemorySegment[] byteBlocks(MemorySegment buffer, long[] counts, long[] displacements, Datatype[] types, String what) {
        CollectiveArguments.checkCounts(counts, remoteSize, what + " counts");
        CollectiveArguments.checkLength(displacements, remoteSize, what + " displacements");
        if (types == null || types.length != remoteSize) {
            throw new LockstepException(ErrorClass.TYPE, what + " types: " + (types == null ? "null" : types.length + " entries")
                    + " for a remote group of " + remoteSize);
        }
        MemorySegment[] blocks = new MemorySegment[remoteSize];
        for (int j = 0; j < remoteSize; j++) {
            Datatype.checkUsable(types[j]);
            long span = counts[j] == 0 ? 0 : types[j].span(counts[j]);
            if (displacements[j] < 0 || (buffer == null ? span > 0 : displacements[j] + span > buffer.byteSize())) {
                throw new LockstepException(ErrorClass.BUFFER, what + " block " + j + " at byte " + displacements[j] + " ("
                        + span + " bytes) lies outside the buffer of " + (buffer == null ? 0 : buffer.byteSize()) + " bytes");
            }
            blocks[j] = span == 0 ? EMPTY : buffer.asSlice(displacements[j]);
        }
        return blocks;
    }

    // ---------------------------------------------------------------- reduce_scatter across

    /**
     * Local rank i receives {@code recvCounts[i]} elements of the reduction, in rank order, of the
     * remote group's vectors (each of the sum of the counts; the sum must be the same in both groups).
     */
    void reduceScatter(MemorySegment send, MemorySegment recv, long[] recvCounts, Datatype type, Op op) {
        notInPlace(send, "reduce_scatter's send buffer");
        CollectiveArguments.checkCounts(recvCounts, size, "reduce_scatter recvCounts");
        long total = 0;
        long[] displacements = new long[size];
        for (int i = 0; i < size; i++) {
            displacements[i] = total;
            total = Math.addExact(total, recvCounts[i]);
        }
        MemorySegment partial = rank == 0 ? scratch(type.span(total)) : null;
        MemorySegment remoteResult = rank == 0 ? scratch(type.span(total)) : null;
        inside.reduce(send, partial, total, type, op, 0);
        if (rank == 0) {
            crossing.sendrecv(partial, total, type, remote(0), CROSSING, remoteResult, total, type, remote(0), CROSSING);
        }
        inside.scatterv(remoteResult, recvCounts, displacements, type, recv, recvCounts[rank], type, 0);
    }

    void reduceScatterBlock(MemorySegment send, MemorySegment recv, long recvCount, Datatype type, Op op) {
        if (recvCount < 0) {
            throw new LockstepException(ErrorClass.COUNT, "reduce_scatter_block recvCount " + recvCount + " is negative");
        }
        long[] counts = new long[size];
        Arrays.fill(counts, recvCount);
        reduceScatter(send, recv, counts, type, op);
    }
}
