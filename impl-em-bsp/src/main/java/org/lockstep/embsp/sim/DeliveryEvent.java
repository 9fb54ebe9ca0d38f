package org.lockstep.embsp.sim;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * Message bytes moved into or out of a VP's context by the {@link DataMover}: a direct delivery
 * (written into the receiver's context) or a pull (read from the sender's), through memory when
 * that context is resident, through its disk blocks when it is swapped out. The duration is the
 * copy, or the I/O up to handing the aligned writes to the α in flight (they finish later). One per
 * piece of a message, so a recording with default settings keeps those of {@value #DEFAULT_THRESHOLD}
 * or more; {@code #threshold=0 ms} keeps all ({@code lockstep run --jfr} does).
 */
@Name("org.lockstep.Delivery")
@Label("EM-BSP delivery")
@Category({"Lockstep", "EM-BSP"})
@Description("Message bytes written into (delivery) or read out of (pull) a VP's context, in memory or on disk")
@Threshold(DeliveryEvent.DEFAULT_THRESHOLD)
@StackTrace(false)
final class DeliveryEvent extends Event {
    /** The threshold of a recording that does not set one: as for the point-to-point send and receive events. */
    static final String DEFAULT_THRESHOLD = "20 ms";

    @Label("VP")
    @Description("The VP whose context the bytes went into or came out of")
    int vp;

    @Label("Direction")
    @Description("'write' (delivered into the context) or 'read' (pulled out of it)")
    String direction;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("On disk")
    @Description("The context was swapped out: the bytes went through its blocks on disk")
    boolean onDisk;

    /** Ends and, when the recording wants it, commits the move. */
    void moved(int vp, String direction, long bytes, boolean onDisk) {
        end();
        if (shouldCommit()) {
            this.vp = vp;
            this.direction = direction;
            this.bytes = bytes;
            this.onDisk = onDisk;
            commit();
        }
    }
}
