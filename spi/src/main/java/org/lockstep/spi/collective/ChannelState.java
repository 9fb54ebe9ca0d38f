package org.lockstep.spi.collective;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import org.lockstep.api.Communicator;

/**
 * What the default algorithms remember per collective channel: the number of collectives started
 * on it, which becomes part of every message tag ({@link CollectiveTag}). Held weakly, so that a
 * freed communicator's state goes with it; a provider must therefore hand the engine the same
 * channel object for the life of a communicator.
 */
final class ChannelState {
    private static final Map<Communicator, ChannelState> STATES = Collections.synchronizedMap(new WeakHashMap<>());

    private long started;

    private ChannelState() {
    }

    static ChannelState of(Communicator channel) {
        return STATES.computeIfAbsent(channel, c -> new ChannelState());
    }

    /** The sequence number of the next collective on this channel (0, 1, 2, …). */
    synchronized long nextSequence() {
        return started++;
    }
}
