package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.lockstep.api.ErrorClass;
import org.lockstep.pcie.layout.CheckpointSlotDescriptor;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.LogRingDescriptor;
import org.lockstep.pcie.layout.LoggedBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.DeviceException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * What a restart reads of the message log on the device, checked as it goes: a committed
 * checkpoint's body, the blocks of a log ring from its persisted tail, a logged block a directory
 * entry names. Reads only; a corrupt or hostile image fails with a clear error. Part of the
 * {@link MessageLog}.
 */
final class LogReader {
    /** A checkpoint slot's body as read (rounded up to whole words) and its length in bytes. */
    record CheckpointBody(MemorySegment body, long length) {
    }

    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final MemorySegment header = MemorySegment.ofArray(new long[LayoutConstants.CACHE_LINE / Long.BYTES]);

    LogReader(ExternalMemory device, MailboxLayout layout, int rank) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
    }

    /** The body of this rank's checkpoint of {@code epoch} (committed), checked against its slot's epoch, length and checksum. */
    CheckpointBody checkpointBody(long epoch) {
        long slot = layout.checkpointSlot(rank, (int) (epoch & 1));
        long stored = device.getLong(slot + CheckpointSlotDescriptor.EPOCH_OFFSET);
        long length = device.getLong(slot + CheckpointSlotDescriptor.LENGTH_OFFSET);
        if (stored != epoch || length < 0 || length > layout.checkpointBodyCapacity() || (length & 7) != 0 && length < 8) {
            throw corrupt("checkpoint slot of epoch " + epoch + " holds epoch " + stored + " of " + length + " bytes");
        }
        MemorySegment body = MemorySegment.ofArray(new long[(int) ((length + 7) / 8)]);
        device.read(slot + CheckpointSlotDescriptor.BODY_OFFSET, body, 0, length);
        if (CheckpointChecksum.of(epoch, body, length) != device.getLong(slot + CheckpointSlotDescriptor.CHECKSUM_OFFSET)) {
            throw corrupt("checkpoint of epoch " + epoch + " fails its checksum");
        }
        return new CheckpointBody(body, length);
    }

    /** A logged message to replay. Ticket "infinity": a synchronous sender waits for its release word to reach its slot's ticket. */
    static IncomingMessage replayed(int source, LoggedMessage logged) {
        return new IncomingMessage(logged.block(), Long.MAX_VALUE, logged.sequence(), source, logged.tag(), logged.context(),
                logged.length(), logged.messageLength(), logged.flags(),
                logged.block() + HeapBlockDescriptor.PAYLOAD_OFFSET, logged.block() + HeapBlockDescriptor.RELEASED_TICKET_OFFSET);
    }

    /** What a walk of a log ring found: its tail and head, where it wrapped (-1: nowhere), and the blocks between, in order. */
    record RingWalk(long tail, long head, long wrappedAt, List<LoggedMessage> blocks) {
    }

    /**
     * Walks {@code sender}'s log ring to {@code dest} from its persisted tail
     * ({@link LogRingDescriptor}), at most {@code limit} blocks. A live sender may move the tail
     * meanwhile (only over blocks its receiver's checkpoint released): the walk is repeated until
     * the tail stood still.
     */
    RingWalk walkRing(int sender, int dest, int limit) {
        long start = layout.logRing(sender, dest);
        long end = start + layout.logRingLength();
        long tailWord = layout.logRingTailAddress(sender, dest);
        for (int attempt = 0; ; attempt++) {
            long tailRead = device.getLongAcquire(tailWord);
            long tail = tailRead;
            if (tail == 0) {
                tail = start; // never written: the ring is as formatted
            }
            if (tail < start || tail > end || (tail & (LayoutConstants.CACHE_LINE - 1)) != 0) {
                throw corrupt("log ring tail " + tail + " to rank " + dest + " outside its ring [" + start + ", " + end + ")");
            }
            List<LoggedMessage> blocks = new ArrayList<>();
            long position = tail;
            long previous = 0;
            long wrappedTo = -1; // after a wrap marker: the sequence number the block at the start must have
            long wrappedAt = -1;
            long walked = 0;
            while (walked < end - start && blocks.size() < limit) {
                if (position == end) {
                    wrappedAt = end;
                    position = start;
                }
                BlockHeader h = readHeader(position);
                if (h == null || h.sequence() <= previous || wrappedTo > 0 && h.sequence() < wrappedTo) {
                    break; // the head: a block being written, or an older lap's
                }
                long w0 = h.w0();
                long sequence = h.sequence();
                long length = h.length();
                long blockLength = h.blockLength();
                if ((int) w0 == LogRingDescriptor.WRAP_DESTINATION) {
                    if (position == start || blockLength != end - position) {
                        break;
                    }
                    wrappedTo = sequence;
                    wrappedAt = position;
                    walked += blockLength;
                    position = start;
                    continue;
                }
                long rounded = LayoutConstants.align(blockLength, LayoutConstants.CACHE_LINE);
                if ((int) w0 != dest || length < 0 || blockLength != HeapBlockDescriptor.blockLength(length) || rounded > end - position) {
                    break;
                }
                blocks.add(new LoggedMessage(dest, sequence, position, blockLength, -1, (int) h.w2(), (int) (h.w2() >>> 32), length,
                        h.messageLength(), (int) (w0 >>> 32)));
                previous = sequence;
                wrappedTo = -1;
                walked += rounded;
                position += rounded;
            }
            if (device.getLongAcquire(tailWord) == tailRead || attempt >= 3) {
                return new RingWalk(tail, blocks.isEmpty() ? tail : position, wrappedAt, blocks);
            }
        }
    }

    /** The header words of a logged block (or wrap marker), {@link LoggedBlockDescriptor}. */
    private record BlockHeader(long w0, long sequence, long w2, long length, long messageLength, long blockLength) {
    }

    /** The header at {@code block} if its check word holds, else null (torn, stale, or never written). */
    private BlockHeader readHeader(long block) {
        MemorySegment h = header;
        device.read(block + LoggedBlockDescriptor.DESTINATION_OFFSET, h, LoggedBlockDescriptor.DESTINATION_OFFSET,
                LoggedBlockDescriptor.HEADER_LENGTH);
        BlockHeader read = new BlockHeader(h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.DESTINATION_OFFSET),
                h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.SEQUENCE_OFFSET),
                h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.TAG_OFFSET),
                h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.LENGTH_OFFSET),
                h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.MESSAGE_LENGTH_OFFSET),
                h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.BLOCK_LENGTH_OFFSET));
        long check = LoggedBlockDescriptor.check(read.w0(), read.sequence(), read.w2(), read.length(), read.messageLength(),
                read.blockLength());
        return h.get(ValueLayout.JAVA_LONG_UNALIGNED, LoggedBlockDescriptor.CHECK_OFFSET) == check ? read : null;
    }

    /** A logged block's header, checked; null if the check fails (a block named by a torn or stale entry). */
    LoggedMessage readBlock(int source, long block, long index) {
        BlockHeader h = readHeader(block);
        if (h == null) {
            return null;
        }
        long w0 = h.w0();
        long sequence = h.sequence();
        long w2 = h.w2();
        long length = h.length();
        long messageLength = h.messageLength();
        long blockLength = h.blockLength();
        int dest = (int) w0;
        int flags = (int) (w0 >>> 32);
        if (dest < 0 || dest >= size || sequence < 1 || blockLength != HeapBlockDescriptor.blockLength(length)) {
            throw corrupt("logged block " + block + " of rank " + source + " names destination " + dest + ", sequence "
                    + sequence + ", length " + length + " in a block of " + blockLength);
        }
        layout.checkHeapRange(source, block, length);
        return new LoggedMessage(dest, sequence, block, blockLength, index, (int) w2, (int) (w2 >>> 32), length, messageLength, flags);
    }

    DeviceException corrupt(String what) {
        return new DeviceException(ErrorClass.INTERN, "corrupt device " + device.name() + ": rank " + rank + "'s " + what);
    }
}
