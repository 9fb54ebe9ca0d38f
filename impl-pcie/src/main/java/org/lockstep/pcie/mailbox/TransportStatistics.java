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

    @Override
    public String toString() {
        return "sent " + messagesSent + " (" + bytesSent + " B; pair " + pairMailboxSends + ", async " + asyncMailboxSends
                + ", indirect " + indirectSends + ", queued " + sendsQueued + "), received " + messagesReceived
                + " (" + bytesReceived + " B), waits: mailbox full " + mailboxFullWaits + ", heap full " + heapFullWaits;
    }
}
