package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** What a restart found in the committed checkpoint ({@link LogCheckpoint}) and in the log ({@link LogRecovery}). */
final class Recovery {
    long epoch;
    /** The registered state section of the committed checkpoint, or null without one. */
    MemorySegment state;
    /** Per destination: the last sequence number sent at the checkpoint. */
    long[] sentAtCheckpoint;
    /** Per source: the logged messages to replay, in sequence order. */
    List<List<IncomingMessage>> replay = new ArrayList<>();
}
