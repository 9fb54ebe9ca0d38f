package org.lockstep.conformance.scenario;

import org.lockstep.api.Communicator;

/**
 * What a receive or probe asks for: a source rank or {@link Communicator#ANY_SOURCE}, a tag or
 * {@link Communicator#ANY_TAG}.
 */
public record ReceiveSpec(int source, int tag) {
    /** Whether a message from {@code messageSource} with {@code messageTag} matches. */
    public boolean matches(int messageSource, int messageTag) {
        return (source == Communicator.ANY_SOURCE || source == messageSource) && (tag == Communicator.ANY_TAG || tag == messageTag);
    }

    public boolean matches(Message m) {
        return matches(m.source(), m.tag());
    }

    @Override
    public String toString() {
        return "(" + (source == Communicator.ANY_SOURCE ? "ANY_SOURCE" : "rank " + source) + ", "
                + (tag == Communicator.ANY_TAG ? "ANY_TAG" : "tag " + tag) + ")";
    }
}
