package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.function.LongConsumer;

import org.lockstep.embsp.net.Frame;
import org.lockstep.embsp.net.Interconnect;
import org.lockstep.embsp.net.Outgoing;
import org.lockstep.embsp.sim.Deliveries;
import org.lockstep.embsp.sim.IoActor;
import org.lockstep.embsp.sim.Location;

/**
 * Answers one pull of another real processor (seed 003's rooted primitives across processors, and
 * rendezvous point-to-point messages): the agent reads the bytes from their owner's context —
 * memory if it is swapped in, else the disk — a frame at a time, α frames in flight, and counts
 * the pull served once every byte is read, so the owner may leave the call (or its send
 * completes). A pull whose sizes disagree is answered with the error.
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
    /** The header of the answering frames (PULLED, a = request id); b and c are set per frame. */
    private final Frame answer;
    private final Request request;
    private final Location source;
    private final String error;
    private final IoActor actor;
    private final LongConsumer sent;
    private final Runnable served;
    private final ArrayDeque<Outgoing> inFlight = new ArrayDeque<>();
    private long next;
    private boolean counted;

    /**
     * Answers {@code request} with the bytes of {@code source} (or with {@code error}) in frames
     * like {@code answer}, the reads counted on {@code actor} and the frames on {@code sent};
     * {@code served} runs once all bytes are read.
     */
    PullService(Remote remote, Frame answer, Request request, Location source, String error, IoActor actor, LongConsumer sent,
                Runnable served) {
        this.remote = remote;
        this.answer = answer;
        this.request = request;
        this.source = source;
        this.error = error;
        this.actor = actor;
        this.sent = sent;
        this.served = served;
    }

    @Override
    public boolean produce() {
        if (counted) {
            return false;
        }
        if (error != null) {
            byte[] text = error.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            remote.network().send(request.from(), at(0, -1).with(MemorySegment.ofArray(text)), sent);
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
                remote.mover().read(actor, source.slice(next, n), bytes, reads);
            }
            inFlight.add(remote.network().send(request.from(), at(next, 0).with(bytes), sent));
            next += n;
            worked = true;
            if (next == request.length()) {
                finish();
                break;
            }
        }
        return worked;
    }

    private Frame at(long b, long c) {
        return new Frame(answer.kind(), -1, answer.group(), answer.call(), answer.a(), b, c, answer.payload());
    }

    private void finish() {
        counted = true;
        served.run();
    }

    @Override
    public boolean finished() {
        return counted;
    }
}
