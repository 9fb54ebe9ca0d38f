package org.lockstep.pcie.mailbox;

import java.util.Locale;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One piece of a message the {@link Sender} published in a mailbox slot, with the
 * {@link Placement} it chose for it: how the mailbox transport moved a send. One per piece, so off
 * unless a recording turns it on ({@code lockstep run --jfr} does).
 */
@Name("org.lockstep.SlotPublished")
@Label("Mailbox slot published")
@Category({"Lockstep", "Point-to-point"})
@Description("A piece of a message published in a mailbox slot, with how the transport placed it")
@Enabled(false)
@StackTrace(false)
final class SlotPublishedEvent extends Event {
    @Label("Rank")
    int rank;

    @Label("Destination")
    @Description("World rank of the receiver")
    int dest;

    @Label("Tag")
    int tag;

    @Label("Context")
    @Description("The communicator's context id (a collective channel's is its communicator's + 1)")
    int context;

    @Label("Placement")
    @Description("inline (in the slot), indirect (one heap block), fragment (one of several), offer (single-copy rendezvous) or direct (into the receive buffer)")
    String placement;

    @Label("Bytes")
    @DataAmount
    @Description("This piece's payload")
    long bytes;

    @Label("Message bytes")
    @DataAmount
    long messageBytes;

    @Label("Asynchronous ring")
    @Description("The pair ring was full: the slot was claimed in the receiver's asynchronous ring")
    boolean asyncRing;

    @Label("Logged")
    @Description("The piece's block is in the message log (checkpointing job)")
    boolean logged;

    /**
     * Records a published piece, when a recording wants it (the program's messages only: no
     * preambles). Callers ask {@link org.lockstep.spi.events.Events#recording} first: calling this
     * initializes the event class, which registers it with Flight Recorder.
     */
    static void published(int rank, SendRequest send, Placement p, boolean asyncRing, boolean logged) {
        published(rank, send.dest, send.tag, send.context, p.kind, p.length, send.length, asyncRing, logged);
    }

    /** Records a published piece of {@code messageBytes} to {@code dest}, when a recording wants it. */
    static void published(int rank, int dest, int tag, int context, Placement.Kind kind, long bytes, long messageBytes,
                          boolean asyncRing, boolean logged) {
        SlotPublishedEvent event = new SlotPublishedEvent();
        if (event.shouldCommit()) {
            event.rank = rank;
            event.dest = dest;
            event.tag = tag;
            event.context = context;
            event.placement = kind.name().toLowerCase(Locale.ROOT);
            event.bytes = bytes;
            event.messageBytes = messageBytes;
            event.asyncRing = asyncRing;
            event.logged = logged;
            event.commit();
        }
    }
}
