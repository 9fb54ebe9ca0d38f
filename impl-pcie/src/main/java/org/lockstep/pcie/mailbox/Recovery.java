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

    /** Whether incarnation {@code incarnation}, resuming checkpoint {@code epoch} (0: none), is a restart rather than a first start. */
    static boolean isRestart(long incarnation, long epoch) {
        return incarnation > 1 || epoch > 0;
    }

    /** The logged messages to replay, over all sources. */
    long messagesToReplay() {
        long total = 0;
        for (List<IncomingMessage> fromSource : replay) {
            total += fromSource.size();
        }
        return total;
    }
}
