package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;

import static org.lockstep.embsp.comm.CollectiveBuffers.bytes;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/** Scan, Exscan: each VP waits for its predecessor (rooted on rank − 1), folds its own contribution into the running prefix and takes its result. */
final class Scans {
    private final CallSynchronisation calls;

    Scans(CallSynchronisation calls) {
        this.calls = calls;
    }

    void scan(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
              boolean inclusive) {
        long length = bytes(type, count);
        MemorySegment output = slice(recv, 0, length, operation + " receive buffer");
        MemorySegment input = send == Communicator.IN_PLACE ? output : slice(send, 0, length, operation + " send buffer");
        CallState call = calls.enter(c, operation);
        int rank = c.rank();
        calls.locked(() -> {
            call.ensureAccumulator(length);
            call.io.messageOf(length);
        });
        calls.await(c, call, () -> call.combinedUpTo == rank - 1, calls.turnOf(call, rank),
                operation + " waiting for rank " + (rank - 1));
        MemorySegment.copy(input, 0, call.scratch, 0, length);
        if (!inclusive && rank > 0) {
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        }
        if (rank > 0) {
            op.apply(call.accumulator, call.scratch, count, type);
        }
        call.swapAccumulator();
        if (inclusive) {
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        }
        calls.locked(() -> {
            call.combinedUpTo = rank;
            if (rank + 1 < call.n) {
                call.turn(rank + 1).set(calls.scheduler());
            }
        });
        calls.leave(c, call);
    }
}
