package org.lockstep.pcie.mailbox;

/** A sender's single-copy rendezvous in progress ({@link SingleCopy}): the answer block and, once accepted, where the payload went. */
final class Rendezvous {
    final long block;
    final long blockLength;
    final long ticket;
    long target = -1;

    Rendezvous(long block, long blockLength, long ticket) {
        this.block = block;
        this.blockLength = blockLength;
        this.ticket = ticket;
    }
}
