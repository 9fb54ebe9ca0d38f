package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.CheckpointAreaDescriptor.*;

import java.util.ArrayDeque;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The order in which this rank's wildcard receives matched, persisted entry by entry in its
 * match log ({@link org.lockstep.pcie.layout.CheckpointAreaDescriptor}) before each receive
 * completes, and, after a restart, the matches of the predecessor that this incarnation's wildcard
 * receives repeat. Part of the {@link MessageLog}; used under the endpoint's lock.
 */
final class MatchLog {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final long entries;
    private final TransportStatistics statistics;
    /** Next position to write. */
    private long position;
    /** Logged matches of a previous incarnation that this one's wildcard receives replay: {position, source, sequence}. */
    private final ArrayDeque<long[]> replay = new ArrayDeque<>();
    /** The position the committed checkpoint recorded (entries before it are never needed). */
    private long committedPosition;

    MatchLog(ExternalMemory device, MailboxLayout layout, int rank, TransportStatistics statistics) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.entries = layout.config().matchLogEntriesPerRank();
        this.statistics = statistics;
    }

    /**
     * The next logged match a restarted incarnation must repeat, {source, sequence}, or null when
     * the log of its predecessor is used up (then wildcards match freely and are logged).
     */
    long[] nextReplayed() {
        long[] entry = replay.pollFirst();
        if (entry != null) {
            statistics.wildcardMatchesReplayed++;
            return new long[] {entry[1], entry[2]};
        }
        return null;
    }

    /** Logs that a wildcard receive matched {@code sequence} from {@code source}; persisted before the receive completes. */
    void log(int source, long sequence) {
        if (position - committedPosition >= entries) {
            throw new LockstepException(ErrorClass.NO_MEM, "rank " + rank + ": the wildcard match log is full ("
                    + entries + " ANY_SOURCE matches since the last checkpoint); checkpoint more often or raise "
                    + Checkpoints.STATE_BYTES_PROPERTY);
        }
        long entry = layout.matchLogEntry(rank, position);
        device.putLong(entry + MATCH_SOURCE_OFFSET, source);
        device.putLong(entry + MATCH_SEQUENCE_OFFSET, sequence);
        device.putLong(entry + MATCH_CHECK_OFFSET, matchCheck(position, source, sequence));
        device.putLong(entry + MATCH_POSITION_OFFSET, position);
        device.persist(entry, MATCH_ENTRY_LENGTH);
        position++;
        statistics.wildcardMatchesLogged++;
    }

    /** Where a checkpoint taken now resumes the match log: at the first match not yet replayed, else at the next one. */
    long cursor() {
        return replay.isEmpty() ? position : replay.peekFirst()[0];
    }

    /** A checkpoint that recorded {@code cursor} has committed. */
    void committed(long cursor) {
        committedPosition = cursor;
    }

    /** A restart: the predecessor's matches after the checkpoint's {@code cursor}, in order, are to be replayed. */
    void recover(long cursor) {
        committedPosition = cursor;
        long at = cursor;
        while (at - cursor < entries) {
            long entry = layout.matchLogEntry(rank, at);
            long source = device.getLong(entry + MATCH_SOURCE_OFFSET);
            long sequence = device.getLong(entry + MATCH_SEQUENCE_OFFSET);
            if (device.getLong(entry + MATCH_POSITION_OFFSET) != at
                    || device.getLong(entry + MATCH_CHECK_OFFSET) != matchCheck(at, source, sequence)) {
                break;
            }
            if (source < 0 || source >= size || sequence < 1) {
                throw new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": rank " + rank
                        + "'s wildcard match log entry " + at + " names source " + source + ", sequence " + sequence);
            }
            replay.addLast(new long[] {at, source, sequence});
            at++;
        }
        position = at;
    }
}
