package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.FrameKind;
import org.lockstep.embsp.net.Interconnect;
import org.lockstep.embsp.net.Outgoing;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.Location;

/**
 * Answers one pull of another real processor (seed 003's rooted primitives across processors): the
 * agent reads the bytes from their owner's context — memory if it is swapped in, else the disk —
 * a frame at a time, α frames in flight, and counts the pull served once every byte is read, so
 * the owner may leave the call. A pull whose sizes disagree is answered with the error.
 */
final class PullService implements Interconnect.Producer {
    /** What a pull reads. */
    static final int ROOT = 0;
    static final int ROOT_BLOCK = 1;
    static final int SEND_BUFFER = 2;

    /** A pull as it arrived: from processor {@code from}, request {@code id}, {@code length} bytes of {@code what}. */
    record Request(int from, long id, int what, int rank, long offset, long length) {
    }

    private final Remote remote;
    private final Group group;
    private final CallState call;
    private final Request request;
    private final Location source;
    private final String error;
    private final ArrayDeque<Outgoing> inFlight = new ArrayDeque<>();
    private long next;
    private boolean counted;

    PullService(Remote remote, Group group, CallState call, Request request, Location source, String error) {
        this.remote = remote;
        this.group = group;
        this.call = call;
        this.request = request;
        this.source = source;
        this.error = error;
    }

    @Override
    public boolean produce() {
        if (counted) {
            return false;
        }
        if (error != null) {
            byte[] text = error.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            remote.send(request.from(), Frame.of(FrameKind.PULLED, group.key(), call.sequence, request.id(), 0, -1)
                    .with(MemorySegment.ofArray(text)), call);
            finish();
            return true;
        }
        while (!inFlight.isEmpty() && inFlight.peekFirst().isDone()) {
            inFlight.pollFirst();
        }
        boolean worked = false;
        long frame = remote.framePayload();
        int alpha = remote.alpha();
        MemorySegment chunk = remote.agentChunk();
        while (inFlight.size() < alpha && (next < request.length() || request.length() == 0 && !counted)) {
            long n = Math.min(frame, request.length() - next);
            MemorySegment bytes = chunk.asSlice(0, n);
            if (n > 0) {
                Deliveries reads = remote.agentDeliveries();
                remote.mover().read(remote.agentActor(call), source.slice(next, n), bytes, reads);
            }
            inFlight.add(remote.send(request.from(), Frame.of(FrameKind.PULLED, group.key(), call.sequence, request.id(), next, 0)
                    .with(bytes), call));
            next += n;
            worked = true;
            if (next == request.length()) {
                finish();
                break;
            }
        }
        return worked;
    }

    private void finish() {
        counted = true;
        remote.served(call);
    }

    @Override
    public boolean finished() {
        return counted;
    }
}
