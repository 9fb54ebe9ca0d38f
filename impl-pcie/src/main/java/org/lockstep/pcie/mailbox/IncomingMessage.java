package org.lockstep.pcie.mailbox;

/**
 * A message the receiver has seen in a slot and not yet read: the header fields, copied out once
 * and checked against the layout, and where its payload lies. The slot stays locked (owned by the
 * receiver) until {@code unlock_mailbox} releases it after the copy.
 */
record IncomingMessage(long slotAddress, long ticket, long sequence, int source, int tag, int context,
                       long length, int flags, long payloadAddress) {
}
