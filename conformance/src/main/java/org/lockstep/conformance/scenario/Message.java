package org.lockstep.conformance.scenario;

/**
 * One message of a scenario. Its payload is {@link org.lockstep.conformance.PayloadPattern} of its
 * id, so the receiver can tell which message it got.
 *
 * @param id          its index in the scenario's global order (also its send order per sender)
 * @param source      sender rank
 * @param dest        receiver rank (may be the sender)
 * @param tag         tag
 * @param bytes       payload length
 * @param synchronous sent with {@code issend} rather than {@code isend}
 */
public record Message(int id, int source, int dest, int tag, int bytes, boolean synchronous) {
    @Override
    public String toString() {
        return "m" + id + "[" + source + "->" + dest + " tag " + tag + ", " + bytes + " B" + (synchronous ? ", ssend" : "") + "]";
    }
}
