package org.lockstep.pcie.mailbox;

/**
 * Counters of one rank's transport, written only under the rank's progress lock and read for
 * reports and tests.
 */
final class TransportStatistics {
    long messagesSent;
    long bytesSent;
    long messagesReceived;
    long bytesReceived;
    long pairMailboxSends;
    long asyncMailboxSends;
    long indirectSends;
    long sendsQueued;
    long mailboxFullWaits;
    long heapFullWaits;
    long fragmentsStaged;
    long messagesSpilled;
    long abandonedClaimsSkipped;
    /** Payload bytes this rank's transport copied: into slots and heap blocks, out of them, into staging, straight into receive buffers. */
    long bytesCopied;
    /** Messages this rank delivered with a single copy, and their bytes. */
    long singleCopyMessages;
    long singleCopyBytes;
    /** Single-copy offers this rank (as receiver) accepted, and offers that came back declined to this rank (as sender). */
    long singleCopyAccepted;
    long singleCopyDeclined;

    @Override
    public String toString() {
        return "sent " + messagesSent + " (" + bytesSent + " B; pair " + pairMailboxSends + ", async " + asyncMailboxSends
                + ", indirect " + indirectSends + ", queued " + sendsQueued + "), received " + messagesReceived
                + " (" + bytesReceived + " B), waits: mailbox full " + mailboxFullWaits + ", heap full " + heapFullWaits
                + "; copied " + bytesCopied + " B; single copy " + singleCopyMessages + " (" + singleCopyBytes + " B), declined "
                + singleCopyDeclined;
    }
}
