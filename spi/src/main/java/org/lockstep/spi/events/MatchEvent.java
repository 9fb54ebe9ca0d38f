package org.lockstep.spi.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A message matched to a receive by the MPI matching rules: who sent it, with which tag and
 * context, how long, and whether it had waited as unexpected (arrived before its receive was
 * posted). One per message, so off unless a recording turns it on ({@code lockstep run --jfr} does).
 */
@Name("org.lockstep.Match")
@Label("Message matched")
@Category({"Lockstep", "Point-to-point"})
@Description("A message matched to a receive")
@Enabled(false)
@StackTrace(false)
public final class MatchEvent extends Event {
    /**
     * Records a match now, when a recording wants it (the receiving rank is the event's thread).
     * Callers ask {@link Events#recording} first: calling this initializes the event class, which
     * registers it with Flight Recorder.
     */
    public static void matched(int source, int tag, int context, long bytes, boolean unexpected) {
        MatchEvent event = new MatchEvent();
        if (event.shouldCommit()) {
            event.source = source;
            event.tag = tag;
            event.context = context;
            event.bytes = bytes;
            event.unexpected = unexpected;
            event.commit();
        }
    }

    @Label("Source")
    public int source;

    @Label("Tag")
    public int tag;

    @Label("Context")
    public int context;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Unexpected")
    @Description("The message arrived before a receive for it was posted")
    public boolean unexpected;
}
