package org.lockstep.embsp.sim;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One virtual superstep on one real processor, recorded when the last of its VPs leaves it
 * ({@link Accounting}): the context bytes swapped in and out during it, and its span, from the
 * first of its VPs entering it to the last leaving it (the event's duration; superstep 0 starts
 * with the run).
 */
@Name("org.lockstep.Superstep")
@Label("EM-BSP superstep")
@Category({"Lockstep", "EM-BSP"})
@Description("A virtual superstep of the VPs of one real processor, with the context swapping it caused")
@StackTrace(false)
final class SuperstepEvent extends Event {
    @Label("Real processor")
    int realProcessor;

    @Label("Superstep")
    @Description("0 for the first; one more with each collective call")
    int superstep;

    @Label("Swapped in")
    @DataAmount
    @Description("Context bytes read from disk into memory partitions")
    long swapInBytes;

    @Label("Swapped out")
    @DataAmount
    @Description("Context bytes written from memory partitions to disk")
    long swapOutBytes;
}
