package org.lockstep.embsp.comm;

import java.lang.foreign.MemorySegment;

import org.lockstep.embsp.sim.Location;
import org.lockstep.embsp.sim.Vp;

/**
 * A point-to-point message waiting to be matched: either buffered (eager: a copy in the spool)
 * or announced (rendezvous: the receiver will read it from the sender's buffer, which may be in
 * the sender's swapped-out context, and then complete the sender's request).
 */
final class Message {
    final Vp sender;
    final int tag;
    final long bytes;
    final MemorySegment spooled;
    final Location source;
    final EmRequest send;

    private Message(Vp sender, int tag, long bytes, MemorySegment spooled, Location source, EmRequest send) {
        this.sender = sender;
        this.tag = tag;
        this.bytes = bytes;
        this.spooled = spooled;
        this.source = source;
        this.send = send;
    }

    static Message buffered(Vp sender, int tag, MemorySegment copy) {
        return new Message(sender, tag, copy.byteSize(), copy, null, null);
    }

    static Message announced(Vp sender, int tag, Location source, EmRequest send) {
        return new Message(sender, tag, source.length(), null, source, send);
    }
}
