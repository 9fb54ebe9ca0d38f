package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.embsp.sim.BoundaryCache;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

import static org.lockstep.embsp.comm.CollectiveBuffers.checkLength;
import static org.lockstep.embsp.comm.CollectiveBuffers.extent;
import static org.lockstep.embsp.comm.CollectiveBuffers.max;
import static org.lockstep.embsp.comm.CollectiveBuffers.ownBlock;
import static org.lockstep.embsp.comm.CollectiveBuffers.slice;

/**
 * Allgather(v): the later of two VPs does both transfers of the pair — it pulls the earlier one's
 * block and delivers its own into the earlier one's context — so each pair costs one pull and one
 * push, whoever is swapped in.
 */
final class Allgather {
    private final CallSynchronisation calls;

    Allgather(CallSynchronisation calls) {
        this.calls = calls;
    }

    void allgather(EmCommunicator c, String operation, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                   long[] displs) {
        Vp me = c.vp();
        int rank = c.rank();
        int n = c.size();
        MemorySegment all = slice(recv, 0, extent(counts, displs), operation + " receive buffer");
        MemorySegment mine = ownBlock(operation, send, sendBytes, all, counts, displs, rank);
        CallState call = calls.enter(c, operation);
        Location target = Location.of(me, all);
        BoundaryCache cache = calls.cacheOf(call);
        if (!target.isExternal()) {
            for (int i = 0; i < n; i++) {
                if (i != rank) {
                    cache.snapshotEnds(me, target.offset() + displs[i], counts[i]);
                }
            }
        }
        List<Integer> earlier = new ArrayList<>();
        calls.locked(() -> {
            call.io.messageOf(max(counts));
            call.sendBuffers[rank] = Location.of(me, mine);
            call.recvBuffers[rank] = target;
            call.recvCounts[rank] = counts.clone();
            call.recvDisplacements[rank] = displs.clone();
            earlier.addAll(call.recordedOrder);
            call.recordedOrder.add(rank);
            for (int i : earlier) {
                call.io.pull(counts[i]);
                call.io.push(counts[rank]);
            }
        });
        Deliveries inFlight = calls.deliveries(c);
        try {
            for (int i : earlier) {
                calls.mover().readInto(me, call.sendBuffers[i], all.asSlice(displs[i], counts[i]), cache, inFlight);
                Location theirs = call.recvBuffers[i].slice(call.recvDisplacements[i][rank], call.recvCounts[i][rank]);
                checkLength(operation, call.recvCounts[i][rank], mine.byteSize());
                calls.mover().write(me, mine, theirs, cache, inFlight);
            }
        } finally {
            inFlight.drain();
        }
        calls.countFinished(call, n);
        calls.finalSynchronisation(c, call, operation + " waiting for every rank's exchange");
        cache.overlay(me);
        calls.leave(c, call);
    }
}
