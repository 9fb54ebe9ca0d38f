package org.lockstep.spi.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One collective call of one rank: which operation, blocking, non-blocking or one start of a
 * persistent one, which algorithm the provider chose for it, how many bytes this rank contributed
 * or received, and how long the call took (the event's duration: for a non-blocking or persistent
 * call, from its start until a wait or test returned it complete). The provider names its
 * algorithm while the call runs or starts, with {@link CollectiveRecording#algorithm}.
 */
@Name("org.lockstep.Collective")
@Label("Collective")
@Category({"Lockstep", "Collectives"})
@Description("A collective call of one rank, with the algorithm that ran it")
@StackTrace(false)
public final class CollectiveEvent extends Event {
    @Label("Operation")
    public String operation;

    @Label("Kind")
    @Description("blocking, non-blocking or persistent (one start of it)")
    public String kind;

    @Label("Algorithm")
    @Description("What the provider ran, e.g. 'device flags barrier' or 'point-to-point Rabenseifner'")
    public String algorithm;

    @Label("Bytes")
    @DataAmount
    @Description("This rank's buffer: the bytes it sends or receives in the call")
    public long bytes;

    @Label("Rank")
    public int rank;

    @Label("Communicator size")
    public int size;
}
