package org.lockstep.pcie.mailbox;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A restarted rank's recovery ({@link MessageLog#recover}): which incarnation, the checkpoint epoch
 * it resumes from, how many logged messages it will be given again, and how long reading the
 * checkpoint and walking the log took (the event's duration). A rank's first start records none.
 */
@Name("org.lockstep.Restart")
@Label("Restart")
@Category({"Lockstep", "Checkpoints"})
@Description("A restarted rank read its checkpoint and the message log")
@StackTrace(false)
final class RestartEvent extends Event {
    @Label("Rank")
    int rank;

    @Label("Incarnation")
    @Description("1 for the first start, one more for each restart")
    long incarnation;

    @Label("Epoch restored")
    @Description("The committed checkpoint it resumes from; 0 without one")
    long epoch;

    @Label("Messages replayed")
    @Description("Logged messages to this rank its checkpoint had not consumed, delivered again in sequence order")
    long messagesReplayed;
}
