package org.lockstep.embsp.net;

import java.util.ArrayDeque;
import java.util.function.LongConsumer;

/**
 * A sender's frames in flight, at most α of them (seed 003 §6.4: α messages at a time): a new
 * frame first waits for the oldest to leave. The waiting thread keeps what it holds (a VP keeps
 * its partition): the receiving agent always takes frames without waiting on anyone, so the
 * window always moves. Used by one thread at a time.
 */
public final class SendWindow {
    private final Interconnect network;
    private final int alpha;
    private final LongConsumer networkBytes;
    private final ArrayDeque<Outgoing> inFlight = new ArrayDeque<>();

    SendWindow(Interconnect network, int alpha, LongConsumer networkBytes) {
        this.network = network;
        this.alpha = Math.max(1, alpha);
        this.networkBytes = networkBytes;
    }

    /** Sends {@code frame} to real processor {@code to} once fewer than α are in flight. */
    public void send(int to, Frame frame) {
        while (!inFlight.isEmpty() && inFlight.peekFirst().isDone()) {
            inFlight.pollFirst();
        }
        if (inFlight.size() >= alpha) {
            inFlight.pollFirst().await(network);
        }
        inFlight.addLast(network.send(to, frame, networkBytes));
    }

    /** Waits until every frame of this window has left. */
    public void drain() {
        while (!inFlight.isEmpty()) {
            inFlight.pollFirst().await(network);
        }
    }
}
