package org.lockstep.pcie.mailbox;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;

/**
 * A restarted rank's walk of the message log on the device (every rank's directory, and the log
 * rings to and from this rank): per source, the logged messages to this rank its checkpoint had
 * not consumed, to replay in sequence order; and this rank's own {@link SentLog}, rebuilt. Reads
 * only (apart from the heap allocator in memory): a crash during recovery recovers again.
 */
final class LogRecovery {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final LogReader reader;
    private final ConsumedSets consumed;
    private final SentLog sent;
    private final TransportStatistics statistics;

    LogRecovery(ExternalMemory device, MailboxLayout layout, int rank, LogReader reader, ConsumedSets consumed, SentLog sent,
                TransportStatistics statistics) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.reader = reader;
        this.consumed = consumed;
        this.sent = sent;
        this.statistics = statistics;
    }

    /**
     * Adds, per source, the messages to replay to {@code recovery} (whose checkpoint part is
     * read already), and restores this rank's sent log from its directory and rings.
     */
    void collect(Recovery recovery) {
        long entries = layout.config().logEntriesPerRank();
        List<LoggedMessage> mine = new ArrayList<>();
        boolean[] used = new boolean[(int) entries];
        for (int source = 0; source < size; source++) {
            List<IncomingMessage> toReplay = new ArrayList<>();
            for (long index = 0; index < entries; index++) {
                long block = device.getLongAcquire(layout.directoryEntry(source, index));
                if (block == 0) {
                    continue;
                }
                layout.checkHeapRange(source, block, 0);
                LoggedMessage logged = reader.readBlock(source, block, index);
                if (logged == null) {
                    continue; // torn or stale: never a message anyone consumed (blocks are persisted before they are named)
                }
                if (source == rank) {
                    mine.add(logged);
                    used[(int) index] = true;
                }
                if (logged.dest() == rank && !consumed.isConsumed(source, logged.sequence())) {
                    toReplay.add(LogReader.replayed(source, logged));
                }
            }
            if (source != rank) {
                replayFrom(source, reader.walkRing(source, rank, Integer.MAX_VALUE).blocks(), toReplay);
            } else {
                for (int dest = 0; dest < size; dest++) {
                    LogReader.RingWalk walk = reader.walkRing(rank, dest, Integer.MAX_VALUE);
                    sent.restoreRing(dest, walk, device.getLongAcquire(layout.releaseCursorAddress(dest, rank)));
                    if (dest == rank) {
                        replayFrom(rank, walk.blocks(), toReplay);
                    }
                }
            }
            toReplay.sort(Comparator.comparingLong(m -> m.sequence));
            recovery.replay.add(toReplay);
            statistics.messagesReplayed += toReplay.size();
        }
        sent.restoreHeapBlocks(mine, used);
        for (int d = 0; d < size; d++) {
            sent.placed(d, Math.max(recovery.sentAtCheckpoint[d], device.getLongAcquire(layout.releaseCursorAddress(d, rank))));
        }
    }

    /** Adds the blocks of a ring walk from {@code source} that the checkpoint had not consumed to {@code toReplay}. */
    private void replayFrom(int source, List<LoggedMessage> blocks, List<IncomingMessage> toReplay) {
        for (LoggedMessage logged : blocks) {
            if (!consumed.isConsumed(source, logged.sequence())) {
                toReplay.add(LogReader.replayed(source, logged));
            }
        }
    }
}
