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
    // the message log (checkpoints on)
    /** Messages written to the log (payload and header persisted in the sender's heap). */
    long messagesLogged;
    /** Logged messages whose receiver checkpointed past them, and whose heap blocks came back. */
    long messagesReclaimed;
    long bytesReclaimed;
    /** Heap bytes of logged messages not yet reclaimed. */
    long retainedBytes;
    /** Messages a restarted sender sent again and recognised by sequence number: not placed. */
    long resendsDropped;
    /** Messages seen a second time by a receiver (replayed and also published): dropped. */
    long duplicatesDropped;
    /** Messages a restarted receiver found in the log after its checkpoint. */
    long messagesReplayed;
    /** Logged messages a restarted sender published again because its predecessor died before publishing them. */
    long messagesRepublished;
    long wildcardMatchesLogged;
    long wildcardMatchesReplayed;
    long checkpoints;
    long checkpointBytes;
    /** Times a send found the log full (heap or directory) and waited for receivers to checkpoint. */
    long logFullWaits;

    @Override
    public String toString() {
        return "sent " + messagesSent + " (" + bytesSent + " B; pair " + pairMailboxSends + ", async " + asyncMailboxSends
                + ", indirect " + indirectSends + ", queued " + sendsQueued + "), received " + messagesReceived
                + " (" + bytesReceived + " B), waits: mailbox full " + mailboxFullWaits + ", heap full " + heapFullWaits
                + (messagesLogged == 0 && checkpoints == 0 ? "" : "; log: logged " + messagesLogged + ", reclaimed " + messagesReclaimed
                + " (" + bytesReclaimed + " B), retained " + retainedBytes + " B, replayed " + messagesReplayed
                + ", re-sends dropped " + resendsDropped + ", duplicates dropped " + duplicatesDropped + ", checkpoints " + checkpoints);
    }
}
