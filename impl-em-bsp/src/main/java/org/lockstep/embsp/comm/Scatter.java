package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/** Scatter(v), rooted: the root publishes its send buffer; every other VP pulls its block (memory or disk); the root waits until all have. */
final class Scatter {
    private final CallSynchronisation calls;

    Scatter(CallSynchronisation calls) {
        this.calls = calls;
    }

    void scatter(EmCommunicator c, String operation, MemorySegment send, long[] counts, long[] displs, MemorySegment recv,
                 long recvBytes, int root) {
        checkRoot(c, root);
        Vp me = c.vp();
        if (c.rank() == root) {
            MemorySegment all = slice(send, 0, extent(counts, displs), operation + " send buffer");
            if (recv != Communicator.IN_PLACE) {
                checkLength(operation, counts[root], recvBytes);
                MemorySegment.copy(all, displs[root], slice(recv, 0, recvBytes, operation + " receive buffer"), 0, recvBytes);
            }
            CallState call = calls.enter(c, operation);
            calls.locked(() -> {
                call.root = root;
                call.io.messageOf(max(counts));
                for (int i = 0; i < c.size(); i++) {
                    if (i != root) {
                        call.io.pull(counts[i]);
                    }
                }
                call.rootBuffer = Location.of(me, all);
                call.rootCounts = counts.clone();
                call.rootDisplacements = displs.clone();
                call.rootReady.set(calls.scheduler());
                if (call.n == 1) {
                    call.finished.set(calls.scheduler());
                }
            });
            calls.finalSynchronisation(c, call, operation + " root waiting for every rank to read");
            calls.leave(c, call);
            return;
        }
        MemorySegment data = slice(recv, 0, recvBytes, operation + " receive buffer");
        CallState call = calls.enter(c, operation);
        calls.rootedSynchronisation(c, call, operation + " waiting for root " + root);
        checkLength(operation, call.rootCounts[c.rank()], recvBytes);
        calls.mover().read(me, call.rootBuffer.slice(call.rootDisplacements[c.rank()], recvBytes), data, calls.deliveries(c));
        calls.countFinished(call, call.n - 1);
        calls.leave(c, call);
    }
}
