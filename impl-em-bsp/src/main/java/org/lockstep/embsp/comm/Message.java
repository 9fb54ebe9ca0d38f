package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

/**
 * A point-to-point message waiting to be matched: either buffered (eager: a copy in the spool)
 * or announced (rendezvous: the receiver will read it from the sender's buffer, which may be in
 * the sender's swapped-out context, and then complete the sender's request). A message from a VP
 * of another real processor names that processor: if eager, its spool fills as its frames arrive;
 * if announced, the receiver pulls it by the send's id there.
 */
final class Message {
    final int senderVp;
    final int tag;
    final long bytes;
    /** Eager: the copy (guarded by the scheduler's lock while it fills, for a message from elsewhere). */
    MemorySegment spooled;
    /** Whether every byte is in the spool (false only while an eager message from elsewhere arrives). */
    boolean complete;
    final Location source;
    final EmRequest send;
    /** The sender's real processor, for a message from elsewhere (else -1), and the id of its send there (announced) or -1. */
    final int processor;
    final long sendId;

    private Message(int senderVp, int tag, long bytes, MemorySegment spooled, boolean complete, Location source, EmRequest send,
                    int processor, long sendId) {
        this.senderVp = senderVp;
        this.tag = tag;
        this.bytes = bytes;
        this.spooled = spooled;
        this.complete = complete;
        this.source = source;
        this.send = send;
        this.processor = processor;
        this.sendId = sendId;
    }

    static Message buffered(Vp sender, int tag, MemorySegment copy) {
        return new Message(sender.id(), tag, copy.byteSize(), copy, true, null, null, -1, -1);
    }

    static Message announced(Vp sender, int tag, Location source, EmRequest send) {
        return new Message(sender.id(), tag, source.length(), null, true, source, send, -1, -1);
    }

    /** An eager message of {@code bytes} from VP {@code senderVp} of processor {@code processor}, its frames still to come. */
    static Message arriving(int senderVp, int tag, long bytes, int processor) {
        return new Message(senderVp, tag, bytes, null, false, null, null, processor, -1);
    }

    /** A message of {@code bytes} announced by send {@code sendId} of VP {@code senderVp} of processor {@code processor}. */
    static Message announcedElsewhere(int senderVp, int tag, long bytes, int processor, long sendId) {
        return new Message(senderVp, tag, bytes, null, true, null, null, processor, sendId);
    }

    /** Whether the receiver pulls it from another real processor. */
    boolean pulledFromElsewhere() {
        return sendId >= 0;
    }
}
