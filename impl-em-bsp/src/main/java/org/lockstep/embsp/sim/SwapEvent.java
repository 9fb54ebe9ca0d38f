package org.lockstep.embsp.sim;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One swap of a VP's context ({@link Context}): written out of its memory partition, read back
 * in, or loaned (the blocks a reader needs read in as a copy, the disk staying the truth); with
 * the bytes it moved and how long the I/O took (the duration). A context already where it was
 * asked to be records none; one swapped out with no block written since its swap-in records 0 bytes.
 */
@Name("org.lockstep.Swap")
@Label("EM-BSP swap")
@Category({"Lockstep", "EM-BSP"})
@Description("A VP's context swapped out of or into its memory partition")
@StackTrace(false)
final class SwapEvent extends Event {
    @Label("VP")
    int vp;

    @Label("Direction")
    @Description("'out' (to disk), 'in' (read back into the partition: all of it, or the chunks a lazy swap-in reads eagerly), 'in, lazily' (what a lazy swap-in's page faults read, told at the swap-out) or 'loan' (blocks read in as a copy)")
    String direction;

    @Label("Bytes")
    @DataAmount
    long bytes;

    /** Ends and, when the recording wants it, commits the swap. */
    void swapped(int vp, String direction, long bytes) {
        end();
        if (shouldCommit()) {
            this.vp = vp;
            this.direction = direction;
            this.bytes = bytes;
            commit();
        }
    }
}
