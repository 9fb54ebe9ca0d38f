package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.bytes;
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Reduce, Allreduce, Reduce_scatter(_block): computed while communicating, in rank order (so the
 * result is the same bits for every schedule and every VP): whoever holds the next contribution in
 * line folds it, and the waiting ones after it, into an accumulator — read from their owners'
 * memory or disk, so no VP is swapped in for the sake of the fold. The call holds two buffers of
 * the message size in simulator memory while it runs.
 */
final class Reductions {
    private final CallSynchronisation calls;

    Reductions(CallSynchronisation calls) {
        this.calls = calls;
    }

    void reduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op, int root) {
        checkRoot(c, root);
        long length = bytes(type, count);
        boolean inPlace = send == Communicator.IN_PLACE;
        if (inPlace && c.rank() != root) {
            throw new LockstepException(ErrorClass.BUFFER, "reduce: IN_PLACE is only for the root's send buffer");
        }
        MemorySegment input = inPlace ? slice(recv, 0, length, "reduce receive buffer") : slice(send, 0, length, "reduce send buffer");
        MemorySegment output = c.rank() == root ? slice(recv, 0, length, "reduce receive buffer") : null;
        CallState call = calls.enter(c, "reduce");
        contribute(c, call, input, count, type, op);
        int rank = c.rank();
        if (rank == root) {
            calls.await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, "reduce root waiting for the result");
            MemorySegment.copy(call.accumulator, 0, output, 0, length);
        } else {
            calls.await(c, call, () -> call.combinedUpTo >= rank, calls.turnOf(call, rank),
                    "reduce waiting for its contribution to be combined");
        }
        calls.leave(c, call);
    }

    void allreduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CallState call = startAllreduce(c, send, recv, count, type, op);
        finishAllreduce(c, call, recv, bytes(type, count));
    }

    Request iallreduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        CallState call = startAllreduce(c, send, recv, count, type, op);
        c.vp().endCall();
        long length = bytes(type, count);
        return new CollectiveRequest(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, "iallreduce",
                () -> finishAllreduce(c, call, recv, length));
    }

    private CallState startAllreduce(EmCommunicator c, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        long length = bytes(type, count);
        MemorySegment output = slice(recv, 0, length, "allreduce receive buffer");
        MemorySegment input = send == Communicator.IN_PLACE ? output : slice(send, 0, length, "allreduce send buffer");
        CallState call = calls.enter(c, "allreduce");
        contribute(c, call, input, count, type, op);
        return call;
    }

    private void finishAllreduce(EmCommunicator c, CallState call, MemorySegment recv, long length) {
        calls.await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, "allreduce waiting for the result");
        MemorySegment.copy(call.accumulator, 0, recv, 0, length);
        calls.leave(c, call);
    }

    /** Reduce_scatter with {@code counts} elements for each rank. */
    void reduceScatter(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long[] counts, Datatype type,
                       Op op) {
        long total = 0;
        long before = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] < 0) {
                throw new LockstepException(ErrorClass.COUNT, operation + " count " + counts[i] + " of rank " + i + " is negative");
            }
            if (i < c.rank()) {
                before += counts[i];
            }
            total += counts[i];
        }
        long totalBytes = bytes(type, total);
        long myBytes = bytes(type, counts[c.rank()]);
        long myOffset = bytes(type, before);
        boolean inPlace = send == Communicator.IN_PLACE;
        MemorySegment input = inPlace ? slice(recv, 0, totalBytes, operation + " receive buffer")
                : slice(send, 0, totalBytes, operation + " send buffer");
        MemorySegment output = slice(recv, 0, myBytes, operation + " receive buffer");
        CallState call = calls.enter(c, operation);
        contribute(c, call, input, total, type, op);
        calls.await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, operation + " waiting for the result");
        MemorySegment.copy(call.accumulator, myOffset, output, 0, myBytes);
        calls.leave(c, call);
    }

    /**
     * Adds this VP's contribution; if it is next in rank order, folds it and every waiting
     * contribution after it (read from their owners' memory or disk) into the accumulator.
     */
    private void contribute(EmCommunicator c, CallState call, MemorySegment input, long count, Datatype type, Op op) {
        Vp me = c.vp();
        int rank = c.rank();
        long length = input.byteSize();
        boolean[] combiner = new boolean[1];
        calls.locked(() -> {
            call.ensureAccumulator(length);
            call.io.messageOf(length);
            call.io.eachOtherPulls(call.n, length);
            call.contributions[rank] = Location.of(me, input);
            call.contributed[rank] = true;
            if (!call.combining && call.combinedUpTo + 1 < call.n && call.contributed[call.combinedUpTo + 1]) {
                call.combining = true;
                combiner[0] = true;
            }
        });
        Deliveries inFlight = calls.deliveries(c);
        while (combiner[0]) {
            int next = call.combinedUpTo + 1;
            Location source = call.contributions[next];
            if (source.length() != length) {
                throw new LockstepException(ErrorClass.COUNT, "reduction: rank " + next + " gives " + source.length()
                        + " bytes where rank " + rank + " gives " + length);
            }
            if (next == 0) {
                calls.mover().read(me, source, call.accumulator, inFlight);
            } else {
                calls.mover().read(me, source, call.scratch, inFlight);
                op.apply(call.accumulator, call.scratch, count, type);
                call.swapAccumulator();
            }
            calls.locked(() -> {
                call.combinedUpTo = next;
                call.turn(next).set(calls.scheduler());
                if (next == call.n - 1) {
                    call.finished.set(calls.scheduler());
                }
                if (!(call.combinedUpTo + 1 < call.n && call.contributed[call.combinedUpTo + 1])) {
                    call.combining = false;
                    combiner[0] = false;
                }
            });
        }
    }
}
