package org.lockstep.spi.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * A send call of one rank ({@code send}, {@code ssend}, {@code rsend}, {@code isend}, …) that
 * returned: a blocking one for the whole call, a non-blocking one for handing the message to the
 * transport. One per message, so a recording with default settings keeps only the calls of
 * {@value #DEFAULT_THRESHOLD} or more (those that waited); {@code #threshold=0 ms} keeps all
 * ({@code lockstep run --jfr} does).
 */
@Name("org.lockstep.Send")
@Label("Send")
@Category({"Lockstep", "Point-to-point"})
@Description("A send call of one rank, blocking (the whole call) or non-blocking (handing the message over)")
@Threshold(SendEvent.DEFAULT_THRESHOLD)
@StackTrace(false)
public final class SendEvent extends Event {
    /** The threshold of a recording that does not set one: a send that long waited for room or a receiver. */
    public static final String DEFAULT_THRESHOLD = "20 ms";

    @Label("Rank")
    @Description("The sending rank, in the communicator of the call")
    public int rank;

    @Label("Destination")
    public int dest;

    @Label("Tag")
    public int tag;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Synchronous")
    @Description("ssend or issend: completes once the matching receive has started")
    public boolean synchronous;

    @Label("Blocking")
    @Description("The duration is the whole call; otherwise it is handing the message to the transport")
    public boolean blocking;

    @Label("Collective")
    @Description("A message of a collective algorithm, on its communicator's private collective channel")
    public boolean collective;

    /** Ends and, when the recording wants it, commits a send begun by the caller. */
    public void sent(int rank, int dest, int tag, long bytes, boolean synchronous, boolean blocking,
                     boolean collective) {
        end();
        if (shouldCommit()) {
            this.rank = rank;
            this.dest = dest;
            this.tag = tag;
            this.bytes = bytes;
            this.synchronous = synchronous;
            this.blocking = blocking;
            this.collective = collective;
            commit();
        }
    }
}
