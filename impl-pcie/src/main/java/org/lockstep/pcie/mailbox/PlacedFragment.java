package org.lockstep.pcie.mailbox;

/**
 * A slot this sender has published and must see released: to free the heap block it points at,
 * or to complete a synchronous send when its last fragment has been read.
 *
 * @param dest        world rank of the receiver
 * @param lockAddress where the receiver stores the released ticket
 * @param ticket      the ticket the receiver will store there
 * @param heapOffset  the heap block, or {@link HeapAllocator#FAILED} for an in-place payload
 * @param heapLength  bytes of the heap block
 * @param completes   the synchronous send this release completes, or null
 */
record PlacedFragment(int dest, long lockAddress, long ticket, long heapOffset, long heapLength, SendRequest completes) {
}
