package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Op;
import org.lockstep.api.Request;
import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.IoActor;
import org.lockstep.embsp.sim.Location;

import static org.lockstep.embsp.comm.CollectiveBuffers.bytes;
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Reductions and scans across real processors, in rank order (the same bits on every processor,
 * non-commutative operations included). The running value is a token: the processor that holds
 * it folds its VPs' contributions, in rank order, as they come — read from their contexts, memory
 * or disk — and sends it on (FOLD) when the next rank lives elsewhere; the processor that folds
 * the last rank sends the result to every processor that needs it (RESULT). For the world group,
 * P−1 hops and P−1 results: the fewest messages a rank-ordered reduction can take, and no VP is
 * swapped in for another's sake. Scan and Exscan pass the same token, each VP folding its own
 * contribution in its turn.
 */
final class SpanningFolds {
    private final CallSynchronisation calls;
    private final Remote remote;

    SpanningFolds(CallSynchronisation calls, Remote remote) {
        this.calls = calls;
        this.remote = remote;
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
        calls.locked(() -> call.root = root);
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
        MemorySegment input = send == Communicator.IN_PLACE ? slice(recv, 0, totalBytes, operation + " receive buffer")
                : slice(send, 0, totalBytes, operation + " send buffer");
        MemorySegment output = slice(recv, 0, myBytes, operation + " receive buffer");
        CallState call = calls.enter(c, operation);
        contribute(c, call, input, total, type, op);
        calls.await(c, call, () -> call.combinedUpTo == call.n - 1, call.finished, operation + " waiting for the result");
        MemorySegment.copy(call.accumulator, myOffset, output, 0, myBytes);
        calls.leave(c, call);
    }

    /** Adds this VP's contribution; if the token is here and it is next in line, folds what is ready. */
    private void contribute(EmCommunicator c, CallState call, MemorySegment input, long count, Datatype type, Op op) {
        int rank = c.rank();
        Group group = c.vpGroup();
        long length = input.byteSize();
        boolean[] combiner = new boolean[1];
        calls.locked(() -> {
            call.ensureAccumulator(length);
            call.io.messageOf(length);
            call.io.eachOtherPulls(call.n, length);
            call.op = op;
            call.count = count;
            call.type = type;
            call.contributions[rank] = Location.of(c.vp(), input);
            call.contributed[rank] = true;
            combiner[0] = claimFold(call);
        });
        if (combiner[0]) {
            fold(group, call, c.vp(), calls.deliveries(c));
        }
    }

    /** Whether the caller may fold now: the token is here, nobody folds, the next rank here has contributed (lock held). */
    private static boolean claimFold(CallState call) {
        int next = call.combinedUpTo + 1;
        if (call.combining || !call.span.tokenHere || next >= call.n || call.op == null) {
            return false;
        }
        call.combining = true;
        return true;
    }

    /**
     * Folds while the next contribution is here and in; passes the token on, or sends the result,
     * when the next rank is elsewhere or none is left. The value leaves before the folded rank is
     * published: once it is, its VP may leave, and the last VP out frees the call's buffers.
     */
    private void fold(Group group, CallState call, IoActor actor, Deliveries inFlight) {
        while (true) {
            int next = call.combinedUpTo + 1;
            Location source;
            calls.scheduler().lock().lock();
            try {
                if (next == call.n || !group.isLocal(next) || !call.contributed[next]) {
                    // only when the token arrived with nothing to fold here yet, or a contribution is missing
                    call.combining = false;
                    return;
                }
                source = call.contributions[next];
            } finally {
                calls.scheduler().lock().unlock();
            }
            long length = call.accumulator.byteSize();
            if (source.length() != length) {
                throw new LockstepException(ErrorClass.COUNT, "reduction: rank " + next + " gives " + source.length()
                        + " bytes where others give " + length);
            }
            if (next == 0) {
                calls.mover().read(actor, source, call.accumulator, inFlight);
            } else {
                calls.mover().read(actor, source, call.scratch, inFlight);
                call.op.apply(call.accumulator, call.scratch, call.count, call.type);
                call.swapAccumulator();
            }
            int after = next + 1;
            boolean last = after == call.n;
            boolean away = !last && !group.isLocal(after);
            // publish first (the value cannot come back before it is sent); the last VP out waits for the sends
            calls.locked(() -> {
                call.combinedUpTo = next;
                call.turn(next).set(calls.scheduler());
                if (last || away) {
                    call.span.tokenHere = !away;
                    call.combining = false;
                    call.sending++;
                    if (away) {
                        call.io.crosses(call.accumulator.byteSize(), remote.framePayload());
                    }
                }
                if (last) {
                    call.finished.set(calls.scheduler());
                }
            });
            if (!last && !away) {
                continue;
            }
            try {
                if (last) {
                    sendResult(group, call, next);
                } else {
                    sendValue(group, call, FrameKind.FOLD, group.processorOf(after), next);
                }
            } finally {
                calls.locked(() -> call.sending--);
            }
            return;
        }
    }

    /** Every rank is folded here: the result goes to every processor that needs it. */
    private void sendResult(Group group, CallState call, int upTo) {
        boolean toAll = !"reduce".equals(call.operation);
        int rootProcessor = toAll ? -1 : group.processorOf(call.root);
        for (int q : group.processors()) {
            if (q != remote.here() && (toAll || q == rootProcessor)) {
                calls.locked(() -> call.io.crosses(call.accumulator.byteSize(), remote.framePayload()));
                sendValue(group, call, FrameKind.RESULT, q, upTo);
            }
        }
    }

    private void sendValue(Group group, CallState call, FrameKind kind, int to, int upTo) {
        MemorySegment value = call.accumulator;
        long total = value.byteSize();
        long frame = remote.framePayload();
        long offset = 0;
        do {
            long n = Math.min(frame, total - offset);
            remote.send(to, Frame.of(kind, group.key(), call.sequence, upTo, total, offset)
                    .with(value.asSlice(offset, n)), call);
            offset += n;
        } while (offset < total);
    }

    /** A FOLD or RESULT frame: part of the running value, combined up to rank {@code a} (agent). */
    void value(Group group, CallState call, Frame frame) {
        long total = frame.b();
        boolean[] complete = new boolean[1];
        calls.locked(() -> {
            call.ensureAccumulator(total);
            MemorySegment.copy(frame.payload(), 0, call.accumulator, frame.c(), frame.payload().byteSize());
            call.span.tokenBytes += frame.payload().byteSize();
            complete[0] = call.span.tokenBytes == total;
        });
        if (!complete[0]) {
            return;
        }
        int upTo = (int) frame.a();
        boolean[] combiner = new boolean[1];
        calls.locked(() -> {
            call.span.tokenBytes = 0;
            call.combinedUpTo = upTo;
            if (upTo + 1 < call.n) {
                call.turn(upTo + 1).set(calls.scheduler());
            }
            if (frame.kind() == FrameKind.RESULT) {
                call.finished.set(calls.scheduler());
                return;
            }
            call.span.tokenHere = true;
            combiner[0] = !isScan(call) && claimFold(call);
        });
        if (combiner[0]) {
            Deliveries reads = remote.agentDeliveries();
            try {
                fold(group, call, remote.agentActor(call), reads);
            } finally {
                reads.drain();
            }
        }
    }

    private static boolean isScan(CallState call) {
        return "scan".equals(call.operation) || "exscan".equals(call.operation);
    }

    // ------------------------------------------------------------------ scan, exscan

    void scan(EmCommunicator c, String operation, MemorySegment send, MemorySegment recv, long count, Datatype type, Op op,
              boolean inclusive) {
        Group group = c.vpGroup();
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
        boolean passOn = rank + 1 < call.n && !group.isLocal(rank + 1);
        calls.locked(() -> {
            call.combinedUpTo = rank;
            if (rank + 1 < call.n && !passOn) {
                call.turn(rank + 1).set(calls.scheduler());
            }
            if (passOn) {
                call.span.tokenHere = false;
                call.io.crosses(length, remote.framePayload());
            }
        });
        if (passOn) {
            sendValue(group, call, FrameKind.FOLD, group.processorOf(rank + 1), rank);
        }
        calls.leave(c, call);
    }
}
