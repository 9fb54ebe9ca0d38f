package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.AbstractRequest;
import org.lockstep.spi.messaging.ProgressEngine;

/**
 * A send of the mailbox transport: pending until {@code place_message} has put all of it in
 * slots (one, or several fragments); a synchronous send stays pending until, besides, the receiver
 * has released the slot of its first fragment, which it does only once a receive has matched it.
 */
final class SendRequest extends AbstractRequest {
    final MemorySegment buffer;
    final long length;
    final int dest;
    final int tag;
    final int context;
    final boolean synchronous;
    /** The destination as the program named it (its rank in the communicator), for the status. */
    final int reportedDest;
    /** Bytes already placed in slots. */
    long placedBytes;
    /** Fragments already placed. */
    int fragmentsPlaced;
    /** For a synchronous send: the receiver has released the first slot, so a receive matched it. */
    boolean matchedByReceiver;
    /** The single-copy rendezvous this send waits in, or null. */
    Rendezvous rendezvous;
    /** Failed before it was fully placed (a hostile single-copy answer): it leaves the send queue. */
    boolean abandoned;
    /** Started by a restarted incarnation before it restored its checkpoint: sent outside the log (FLAG_PREAMBLE). */
    boolean preamble;

    SendRequest(ProgressEngine endpoint, MemorySegment buffer, long length, int dest, int tag, int context, boolean synchronous,
                int reportedDest) {
        super(endpoint);
        this.buffer = buffer;
        this.length = length;
        this.dest = dest;
        this.tag = tag;
        this.context = context;
        this.synchronous = synchronous;
        this.reportedDest = reportedDest;
    }

    boolean fullyPlaced() {
        return fragmentsPlaced > 0 && placedBytes == length; // a zero-length message is placed once
    }

    void completeSend() {
        complete(Status.of(reportedDest, tag, length));
    }

    void failWith(LockstepException error) {
        abandoned = true;
        fail(error);
    }

    @Override
    public int peer() {
        return reportedDest;
    }
}
