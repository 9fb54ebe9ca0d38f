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
 * A receive of one rank that got a message: who sent it, its tag and length, and how long it took
 * (the duration): a blocking receive ({@code recv}, {@code mrecv}) for the whole call, a
 * non-blocking one ({@code irecv}, {@code imrecv}, a start of a persistent receive) from its start
 * until a wait or test returned it complete. One per message, so a recording with default settings
 * keeps only the receives of {@value SendEvent#DEFAULT_THRESHOLD} or more; {@code #threshold=0 ms}
 * keeps all ({@code lockstep run --jfr} does). A cancelled receive is not recorded.
 */
@Name("org.lockstep.Receive")
@Label("Receive")
@Category({"Lockstep", "Point-to-point"})
@Description("A receive of one rank: blocking (the call) or non-blocking (from its start to its completion)")
@Threshold(SendEvent.DEFAULT_THRESHOLD)
@StackTrace(false)
public final class ReceiveEvent extends Event {
    @Label("Rank")
    @Description("The receiving rank, in the communicator of the call")
    public int rank;

    @Label("Source")
    @Description("The rank the message came from (the receive may have named ANY_SOURCE)")
    public int source;

    @Label("Tag")
    public int tag;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Any source")
    @Description("The receive named ANY_SOURCE")
    public boolean anySource;

    @Label("Blocking")
    @Description("The duration is the whole call; otherwise it runs from the start to the completion a wait or test saw")
    public boolean blocking;

    @Label("Collective")
    @Description("A message of a collective algorithm, on its communicator's private collective channel")
    public boolean collective;

    /** Ends and, when the recording wants it, commits a receive begun by the caller. */
    public void received(int rank, int source, int tag, long bytes, boolean anySource, boolean collective, boolean blocking) {
        end();
        if (shouldCommit()) {
            this.rank = rank;
            this.source = source;
            this.tag = tag;
            this.bytes = bytes;
            this.anySource = anySource;
            this.collective = collective;
            this.blocking = blocking;
            commit();
        }
    }
}
