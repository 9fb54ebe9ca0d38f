package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.checkRoot;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Gather(v), rooted: the root publishes its receive buffer and caches its boundary blocks; every
 * other VP delivers its block straight into the root's context (memory or disk), the unaligned
 * ends into the cache; the root waits for all and lays the cache over its memory.
 */
final class Gather {
    private final CallSynchronisation calls;

    Gather(CallSynchronisation calls) {
        this.calls = calls;
    }

    void gather(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                long[] displs, int root) {
        checkRoot(c, root);
        if (c.rank() == root) {
            gatherAtRoot(c, operation, send, sendBytes, recv, counts, displs, root);
            return;
        }
        Vp me = c.vp();
        MemorySegment data = slice(send, 0, sendBytes, operation + " send buffer");
        CallState call = calls.enter(c, operation);
        calls.rootedSynchronisation(c, call, operation + " waiting for root " + root);
        checkLength(operation, call.rootCounts[c.rank()], sendBytes);
        Deliveries inFlight = calls.deliveries(c);
        try {
            calls.mover().write(me, data, call.rootBuffer.slice(call.rootDisplacements[c.rank()], sendBytes), call.cache, inFlight);
        } finally {
            inFlight.drain();
        }
        calls.countFinished(call, call.n - 1);
        calls.leave(c, call);
    }

    private void gatherAtRoot(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv,
                              long[] counts, long[] displs, int root) {
        Vp me = c.vp();
        MemorySegment all = slice(recv, 0, extent(counts, displs), operation + " receive buffer");
        if (send != Communicator.IN_PLACE) {
            checkLength(operation, counts[root], sendBytes);
            MemorySegment.copy(slice(send, 0, sendBytes, operation + " send buffer"), 0, all, displs[root], sendBytes);
        }
        CallState call = calls.enter(c, operation);
        Location target = Location.of(me, all);
        BoundaryCache cache = calls.newBoundaryCache();
        if (!target.isExternal()) {
            for (int i = 0; i < c.size(); i++) {
                if (i != root) {
                    cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                }
            }
        }
        calls.locked(() -> {
            call.root = root;
            call.io.messageOf(max(counts));
            for (int i = 0; i < c.size(); i++) {
                if (i != root) {
                    call.io.push(counts[i]);
                }
            }
            call.rootBuffer = target;
            call.rootCounts = counts.clone();
            call.rootDisplacements = displs.clone();
            call.cache = cache;
            call.rootReady.set(calls.scheduler());
            if (call.n == 1) {
                call.finished.set(calls.scheduler());
            }
        });
        calls.finalSynchronisation(c, call, operation + " root waiting for every rank's block");
        cache.overlay(me);
        calls.leave(c, call);
    }
}
