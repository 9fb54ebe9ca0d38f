package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;

import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.ownBlock;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Allgather(v) and Alltoall of small payloads through the call's area in memory (seed 003's
 * message area): each VP copies what it sends into the area as it enters, waits once for every VP
 * (its one swap-out and swap-in of the virtual superstep, as any call), and copies what it receives
 * out of the area when it resumes. No other VP's context is read or written, on disk or in memory:
 * no pulls from swapped-out senders, no deliveries or boundary blocks into swapped-out receivers,
 * no re-read of a send buffer after a wait. The payload costs its bytes in memory twice, so only
 * calls whose whole payload fits {@code lockstep.embsp.stagedCollective} go this way; the others
 * deliver directly ({@link Allgather}, {@link Alltoall}). Every VP decides alike: the sizes it
 * decides on are known to all (an Allgather(v)'s receive counts, an Alltoall's one count).
 */
final class StagedExchange {
    private final CallSynchronisation calls;
    private final long limit;

    StagedExchange(CallSynchronisation calls, long limit) {
        this.calls = calls;
        this.limit = limit;
    }

    /** Whether an Allgather(v) of blocks of {@code counts} bytes goes through the area. */
    boolean takesAllgather(long[] counts) {
        if (limit <= 0) {
            return false;
        }
        long total = 0;
        for (long count : counts) {
            total += count;
            if (total > limit) {
                return false;
            }
        }
        return true;
    }

    /** Whether an Alltoall of {@code bytes} per pair among {@code n} ranks goes through the area. */
    boolean takesAlltoall(int n, long bytes) {
        return limit > 0 && (bytes == 0 || (long) n * n <= limit / bytes);
    }

    void allgather(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                   long[] displs) {
        int rank = c.rank();
        int n = c.size();
        MemorySegment all = slice(recv, 0, extent(counts, displs), operation + " receive buffer");
        MemorySegment mine = ownBlock(operation, send, sendBytes, all, counts, displs, rank);
        long[] at = new long[n + 1];
        for (int i = 0; i < n; i++) {
            at[i + 1] = at[i] + counts[i];
        }
        CallState call = calls.enter(c, operation);
        MemorySegment[] area = new MemorySegment[1];
        calls.locked(() -> {
            call.io.messageOf(max(counts));
            area[0] = call.ensureStaged(at[n]);
            MemorySegment.copy(mine, 0, area[0], at[rank], counts[rank]);
        });
        exchange(c, call, operation);
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(area[0], at[i], all, displs[i], counts[i]);
        }
        calls.leave(c, call);
    }

    /** Alltoall of {@code bytes} per pair; {@code send} may be {@link Communicator#IN_PLACE} (the messages are in {@code recv}). */
    void alltoall(EmCommunicator c, String operation, MemorySegment send, long bytes, MemorySegment recv) {
        int rank = c.rank();
        int n = c.size();
        long row = n * bytes;
        MemorySegment recvAll = slice(recv, 0, row, operation + " receive buffer");
        MemorySegment sendAll = send == Communicator.IN_PLACE ? recvAll : slice(send, 0, row, operation + " send buffer");
        CallState call = calls.enter(c, operation);
        MemorySegment[] area = new MemorySegment[1];
        calls.locked(() -> {
            call.io.messageOf(bytes);
            area[0] = call.ensureStaged(n * row);
            // sender rank's messages are row rank of the area, in receiver order
            MemorySegment.copy(sendAll, 0, area[0], rank * row, row);
        });
        exchange(c, call, operation);
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(area[0], i * row + rank * bytes, recvAll, i * bytes, bytes);
        }
        calls.leave(c, call);
    }

    /** This VP's part is in the area; waits (the call's one wait) until every VP's is. */
    private void exchange(EmCommunicator c, CallState call, String operation) {
        calls.countFinished(call, c.size());
        calls.finalSynchronisation(c, call, operation + " waiting for every rank's part in the message area");
    }
}
