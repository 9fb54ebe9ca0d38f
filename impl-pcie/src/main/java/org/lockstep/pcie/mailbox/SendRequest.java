package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.LockstepException;
import org.lockstep.api.Status;
import org.lockstep.spi.messaging.AbstractRequest;

/**
 * A send of the mailbox transport: pending until {@code place_message} has put it in a slot; a
 * synchronous send stays pending until the receiver has released that slot.
 */
final class SendRequest extends AbstractRequest {
    final MemorySegment buffer;
    final long length;
    final int dest;
    final int tag;
    final int context;
    final boolean synchronous;
    /** Heap block reserved for an indirect payload, or {@link HeapAllocator#FAILED}. */
    long heapOffset = HeapAllocator.FAILED;
    /** Where the receiver will release the slot, and the ticket it will store there. */
    long lockAddress;
    long ticket;

    SendRequest(MailboxEndpoint endpoint, MemorySegment buffer, long length, int dest, int tag, int context, boolean synchronous) {
        super(endpoint);
        this.buffer = buffer;
        this.length = length;
        this.dest = dest;
        this.tag = tag;
        this.context = context;
        this.synchronous = synchronous;
    }

    void completeSend() {
        complete(Status.of(dest, tag, length));
    }

    void failWith(LockstepException error) {
        fail(error);
    }

    @Override
    public int peer() {
        return dest;
    }
}
