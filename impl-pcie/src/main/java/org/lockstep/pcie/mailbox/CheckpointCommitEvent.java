package org.lockstep.pcie.mailbox;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One checkpoint a rank committed to the message log ({@link LogCheckpoint#commit}): its epoch,
 * the bytes written to the device, and how long the commit took (the event's duration: writing
 * the slot, persisting it, then the epoch word and the release cursors).
 */
@Name("org.lockstep.CheckpointCommit")
@Label("Checkpoint commit")
@Category({"Lockstep", "Checkpoints"})
@Description("A checkpoint one rank committed to the device")
@StackTrace(false)
final class CheckpointCommitEvent extends Event {
    @Label("Rank")
    int rank;

    @Label("Epoch")
    @Description("The epoch the commit made current")
    long epoch;

    @Label("Bytes")
    @DataAmount
    @Description("Written to the checkpoint slot: header, transport section and registered state")
    long bytes;
}
