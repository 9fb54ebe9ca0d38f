package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.CheckpointSlotDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.events.Events;

/**
 * One rank's committed checkpoint in the {@link MessageLog}: commits a new one (transport section,
 * registered state, checksum, then the epoch word, then the release cursors) and reads the
 * committed one back at a restart. The slot and its body: {@link CheckpointSlotDescriptor}.
 * Used under the endpoint's progress lock only.
 */
final class LogCheckpoint {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final long incarnation;
    private final ConsumedSets consumed;
    private final MatchLog matches;
    private final LogReader reader;
    private final TransportStatistics statistics;
    private long committedEpoch;

    LogCheckpoint(ExternalMemory device, MailboxLayout layout, int rank, long incarnation, ConsumedSets consumed, MatchLog matches,
                  LogReader reader, TransportStatistics statistics) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.incarnation = incarnation;
        this.consumed = consumed;
        this.matches = matches;
        this.reader = reader;
        this.statistics = statistics;
    }

    long committedEpoch() {
        return committedEpoch;
    }

    /**
     * Commits checkpoint {@code committedEpoch + 1}: transport cursors plus the registered-state
     * section ({@code state}'s pieces, one after the other) into the inactive slot, persisted; then
     * the epoch word, persisted; then the release cursors. Returns the bytes written.
     */
    long commit(long[] nextSendSequence, List<MemorySegment> state) {
        CheckpointCommitEvent event = Events.begun(CheckpointCommitEvent::new);
        long epoch = committedEpoch + 1;
        long matchCursor = matches.cursor();
        long transportWords = 2 + size + consumed.words(); // world size, consumed sets, per destination, match position
        long transportLength = transportWords * Long.BYTES;
        long stateLength = 0;
        for (MemorySegment piece : state) {
            stateLength += piece.byteSize();
        }
        long bodyLength = transportLength + stateLength;
        if (bodyLength > layout.checkpointBodyCapacity()) {
            throw new LockstepException(ErrorClass.NO_MEM, "rank " + rank + ": a checkpoint of " + bodyLength
                    + " bytes does not fit the checkpoint slot of " + layout.checkpointBodyCapacity() + " bytes; raise "
                    + Checkpoints.STATE_BYTES_PROPERTY);
        }
        // The transport section is built here; the registered state goes to the device straight from its own memory.
        MemorySegment body = MemorySegment.ofArray(new long[(int) transportWords]);
        long at = 0;
        body.set(ValueLayout.JAVA_LONG, at, size);
        at += 8;
        at = consumed.write(body, at);
        for (int d = 0; d < size; d++) {
            body.set(ValueLayout.JAVA_LONG, at, nextSendSequence[d] - 1);
            at += 8;
        }
        body.set(ValueLayout.JAVA_LONG, at, matchCursor);
        long slot = layout.checkpointSlot(rank, (int) (epoch & 1));
        device.write(slot + CheckpointSlotDescriptor.BODY_OFFSET, body, 0, transportLength);
        long to = slot + CheckpointSlotDescriptor.BODY_OFFSET + transportLength;
        for (MemorySegment piece : state) {
            device.write(to, piece, 0, piece.byteSize());
            to += piece.byteSize();
        }
        long check = CheckpointChecksum.of(epoch, bodyLength, body, transportWords, state);
        device.putLong(slot + CheckpointSlotDescriptor.EPOCH_OFFSET, epoch);
        device.putLong(slot + CheckpointSlotDescriptor.LENGTH_OFFSET, bodyLength);
        device.putLong(slot + CheckpointSlotDescriptor.CHECKSUM_OFFSET, check);
        device.putLong(slot + CheckpointSlotDescriptor.INCARNATION_OFFSET, incarnation);
        device.persist(slot, CheckpointSlotDescriptor.BODY_OFFSET + bodyLength);
        device.putLongRelease(layout.committedEpochAddress(rank), epoch);
        device.persist(layout.committedEpochAddress(rank), Long.BYTES);
        committedEpoch = epoch;
        matches.committed(matchCursor);
        // Only a committed checkpoint may release anything.
        for (int s = 0; s < size; s++) {
            device.putLongRelease(layout.releaseCursorAddress(rank, s), consumed.prefix(s));
        }
        device.persist(layout.releaseCursorAddress(rank, 0), (long) size * Long.BYTES);
        statistics.checkpoints++;
        statistics.checkpointBytes += bodyLength;
        long written = CheckpointSlotDescriptor.BODY_OFFSET + bodyLength;
        if (Events.ended(event)) {
            event.rank = rank;
            event.epoch = epoch;
            event.bytes = written;
            event.commit();
        }
        return written;
    }

    /**
     * Reads the committed checkpoint, if any, back into the consumed sets and {@code recovery}
     * (epoch, last sequence numbers sent, registered state). Returns the match log's cursor.
     */
    long read(Recovery recovery) {
        long epoch = device.getLongAcquire(layout.committedEpochAddress(rank));
        long matchCursor = 0;
        if (epoch < 0) {
            throw corrupt("committed epoch " + epoch);
        }
        if (epoch > 0) {
            LogReader.CheckpointBody read = reader.checkpointBody(epoch);
            MemorySegment body = read.body();
            long length = read.length();
            long at = 0;
            if (length < 8 || body.get(ValueLayout.JAVA_LONG, 0) != size) {
                throw corrupt("checkpoint of epoch " + epoch + " is for another world size");
            }
            at += 8;
            try {
                at = consumed.read(body, at);
                for (int d = 0; d < size; d++, at += 8) {
                    recovery.sentAtCheckpoint[d] = body.get(ValueLayout.JAVA_LONG, at);
                }
                matchCursor = body.get(ValueLayout.JAVA_LONG, at);
                at += 8;
            } catch (IndexOutOfBoundsException e) {
                throw corrupt("checkpoint of epoch " + epoch + " ends inside its transport section");
            }
            recovery.state = body.asSlice(at, length - at);
            recovery.epoch = epoch;
        }
        committedEpoch = epoch;
        return matchCursor;
    }

    private DeviceException corrupt(String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": rank " + rank + "'s " + what);
    }
}
