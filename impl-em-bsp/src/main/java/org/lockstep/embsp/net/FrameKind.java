package org.lockstep.embsp.net;

/** What a frame between real processors says; the meaning of its words a, b, c is given per kind. */
public enum FrameKind {
    /** At start: the sender's shared parameters (payload, UTF-8), or its setup failure (a = 1). */
    HELLO,
    /** At the end: the sender's report (payload); it sends nothing after it. */
    BYE,
    /** The sender's program failed: the reason (payload, UTF-8). */
    ABORT,
    /** A counter of a call: the sender's share, complete (a = counter, b = share). */
    COUNT,
    /** A rooted call's root has published (a = root rank). */
    ROOT_READY,
    /** A VP recorded its receive table (a = its rank). */
    RECORDED,
    /** A split: the sender's members' colors and keys (payload: rank, color, key triples). */
    COLORS,
    /** Message bytes for a VP here (a = sending rank, b = receiving rank, c = offset in the message; payload). */
    DATA,
    /** Indirect Alltoallv: message bytes for a slot of the indirect area here (a = sending rank, b = receiving rank, c = offset; payload). */
    SLOT_DATA,
    /** Alltoallv: what a sender sends to the receivers here (a = sending rank; payload: lengths in rank order). */
    SUMMARY,
    /** A request to read bytes of a context here (a = request id, b = what, c = offset; payload: length, rank). */
    PULL,
    /** Bytes answering a pull (a = request id, b = offset in the request; payload). */
    PULLED,
    /** A reduction's running value, combined up to a rank (a = that rank; payload). */
    FOLD,
    /** A reduction's result (payload). */
    RESULT,
    /**
     * Point-to-point, a message sent eagerly: its bytes (group = the communicator's context, call =
     * the message's length, a = sending VP &lt;&lt; 32 | receiving VP, b = tag, c = offset; payload).
     */
    P2P_EAGER,
    /** Point-to-point, a message the receiver pulls (group, call, a, b as for {@link #P2P_EAGER}; c = the send's id). */
    P2P_ANNOUNCE,
    /** A pull of an announced message's bytes (a = request id, b = the send's id, c = bytes wanted); answered by {@link #PULLED}. */
    P2P_PULL
}
