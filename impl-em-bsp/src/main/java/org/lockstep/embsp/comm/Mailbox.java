package org.lockstep.embsp.comm;

import org.lockstep.embsp.sim.CompositeSignal;
import org.lockstep.spi.messaging.MatchingEngine;

/**
 * One VP's point-to-point matching state (posted receives and unexpected messages, MPI's
 * matching rules from the SPI's {@link MatchingEngine}) and the signal it waits on for its
 * requests. Guarded by the scheduler's lock.
 */
final class Mailbox {
    private final MatchingEngine<Message> matching;
    private final CompositeSignal signal = new CompositeSignal();

    Mailbox(int worldSize) {
        this.matching = new MatchingEngine<>(worldSize);
    }

    MatchingEngine<Message> matching() {
        return matching;
    }

    CompositeSignal signal() {
        return signal;
    }
}
