package org.lockstep.pcie.mailbox;

import static org.lockstep.pcie.layout.CheckpointAreaDescriptor.DIRECTORY_ENTRY_LENGTH;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.LogRingDescriptor;
import org.lockstep.pcie.layout.LoggedBlockDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;

/**
 * What one rank has logged as a sender, part of the {@link MessageLog}: per destination its log
 * ring ({@link LogRing}, {@link LogRingDescriptor}: block, then check word, each persisted), the
 * heap blocks too large for a ring named in its log directory (block, then directory entry, each
 * persisted), and the highest sequence number any incarnation placed. A message is durable here
 * before it is published, and reclaimed once its receiver's release cursor — advanced only by a
 * committed checkpoint — has passed it. Used under the endpoint's lock.
 */
final class SentLog {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final int size;
    private final HeapAllocator heap;
    private final TransportStatistics statistics;
    private final LogReader reader;
    /** Per destination: the log ring most logged blocks go to. */
    private final LogRing[] rings;
    /** Per destination: logged messages in heap blocks (too large for the ring), in sequence order. */
    private final ArrayDeque<LoggedMessage>[] heapBlocks;
    private final long[] freeDirectory;
    private int freeDirectoryCount;
    /** Per destination: the highest sequence number any incarnation of this rank has placed (re-sends up to it are dropped). */
    private final long[] placedThrough;

    @SuppressWarnings("unchecked")
    SentLog(ExternalMemory device, MailboxLayout layout, int rank, HeapAllocator heap, TransportStatistics statistics, LogReader reader) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.size = layout.config().worldSize();
        this.heap = heap;
        this.statistics = statistics;
        this.reader = reader;
        long directoryEntries = layout.config().logEntriesPerRank();
        if (directoryEntries > Integer.MAX_VALUE) {
            throw new LockstepException(ErrorClass.ARG, "a log directory of " + directoryEntries + " entries is too large");
        }
        heapBlocks = (ArrayDeque<LoggedMessage>[]) new ArrayDeque<?>[size];
        rings = new LogRing[size];
        for (int d = 0; d < size; d++) {
            heapBlocks[d] = new ArrayDeque<>();
            rings[d] = new LogRing(layout.logRing(rank, d), layout.logRingLength());
        }
        freeDirectory = new long[(int) directoryEntries];
        placedThrough = new long[size];
    }

    /** Whether a directory entry is free for one more logged message. */
    boolean hasDirectoryRoom() {
        return freeDirectoryCount > 0;
    }

    /** The highest sequence number to {@code dest} that an earlier incarnation placed; a re-send up to it is dropped. */
    long placedThrough(int dest) {
        return placedThrough[dest];
    }

    /**
     * Reserves a block for the next logged message to {@code dest} in its log ring, or returns
     * {@link LogRing#FAILED} when the ring has no room (the caller then allocates from the heap).
     * The reservation is {@linkplain #log logged} or {@linkplain #rollback rolled back} before the
     * next one.
     */
    long reserveInRing(int dest, long blockLength) {
        return rings[dest].reserve(blockLength);
    }

    /** Undoes a ring reservation that was not logged; false if {@code block} is no ring block (a heap block). */
    boolean rollback(int dest, long block) {
        return rings[dest].rollback(block);
    }

    /**
     * Writes a logged block's header (the payload is written already) and makes the block durable:
     * in a log ring, block then check word, each persisted; a heap block is then also named in the
     * directory, persisted. After this returns, the message survives a crash of this process and
     * (on a persistent device) power loss, and may be published.
     */
    void log(long block, long blockLength, int dest, int flags, long sequence, int tag, int context, long length, long messageLength) {
        LogRing ring = rings[dest];
        long w0 = ((long) flags << 32) | (dest & 0xffffffffL);
        long w2 = ((long) context << 32) | (tag & 0xffffffffL);
        long index = -1;
        if (ring.contains(block)) {
            if (ring.tailUnpersisted()) {
                persistTail(dest);
            }
            long marker = ring.wrapMarker();
            if (marker >= 0) {
                writeHeader(marker, LogRingDescriptor.WRAP_DESTINATION & 0xffffffffL, sequence, 0, 0, 0, ring.end() - marker, true);
                device.persist(marker, LayoutConstants.CACHE_LINE);
            }
            long check = writeHeader(block, w0, sequence, w2, length, messageLength, blockLength, false);
            device.persist(block, HeapBlockDescriptor.blockLength(length));
            device.putLong(block + LoggedBlockDescriptor.CHECK_OFFSET, check);
            device.persist(block + LoggedBlockDescriptor.CHECK_OFFSET, Long.BYTES);
            ring.commit();
        } else {
            writeHeader(block, w0, sequence, w2, length, messageLength, blockLength, true);
            device.persist(block, HeapBlockDescriptor.blockLength(length));
            index = freeDirectory[--freeDirectoryCount];
            long entry = layout.directoryEntry(rank, index);
            device.putLongRelease(entry, block);
            device.persist(entry, DIRECTORY_ENTRY_LENGTH);
            // A ring block needs no record here: the ring's own headers say what it retains.
            heapBlocks[dest].addLast(new LoggedMessage(dest, sequence, block, blockLength, index, tag, context, length, messageLength, flags));
        }
        placedThrough[dest] = Math.max(placedThrough[dest], sequence);
        statistics.messagesLogged++;
        statistics.retainedBytes += LayoutConstants.align(blockLength, LayoutConstants.CACHE_LINE);
    }

    /** Writes a logged block's header words at {@code block}, the check word too if {@code withCheck}; returns the check. */
    private long writeHeader(long block, long w0, long sequence, long w2, long length, long messageLength, long blockLength,
                             boolean withCheck) {
        // Word stores: for one header line they cost less than a bulk copy through a scratch segment.
        long check = LoggedBlockDescriptor.check(w0, sequence, w2, length, messageLength, blockLength);
        device.putLong(block + LoggedBlockDescriptor.DESTINATION_OFFSET, w0);
        device.putLong(block + LoggedBlockDescriptor.SEQUENCE_OFFSET, sequence);
        device.putLong(block + LoggedBlockDescriptor.TAG_OFFSET, w2);
        device.putLong(block + LoggedBlockDescriptor.LENGTH_OFFSET, length);
        device.putLong(block + LoggedBlockDescriptor.MESSAGE_LENGTH_OFFSET, messageLength);
        device.putLong(block + LoggedBlockDescriptor.BLOCK_LENGTH_OFFSET, blockLength);
        if (withCheck) {
            device.putLong(block + LoggedBlockDescriptor.CHECK_OFFSET, check);
        }
        return check;
    }

    private void persistTail(int dest) {
        long word = layout.logRingTailAddress(rank, dest);
        device.putLongRelease(word, rings[dest].tail());
        device.persist(word, Long.BYTES);
        rings[dest].tailPersisted();
    }

    /**
     * Reclaims the logged messages that no restart can need any more: those up to each receiver's
     * release cursor, and all of those to receivers in {@code gone} (finished for good). Directory
     * entries are cleared and persisted before their blocks return to the heap, so that a crash
     * never leaves an entry naming a reused block.
     */
    boolean reclaim(IntPredicate gone) {
        List<LoggedMessage> freed = null;
        boolean any = false;
        for (int dest = 0; dest < size; dest++) {
            ArrayDeque<LoggedMessage> queue = heapBlocks[dest];
            LogRing ring = rings[dest];
            if (queue.isEmpty() && ring.blocks() == 0) {
                continue;
            }
            long cursor = gone.test(dest) ? Long.MAX_VALUE : device.getLongAcquire(layout.releaseCursorAddress(dest, rank));
            while (!queue.isEmpty() && queue.peekFirst().sequence() <= cursor) {
                if (freed == null) {
                    freed = new ArrayList<>();
                }
                freed.add(queue.pollFirst());
            }
            boolean ringReleased = false;
            while (ring.blocks() > 0) {
                long block = ring.oldest();
                if (device.getLong(block + LoggedBlockDescriptor.SEQUENCE_OFFSET) > cursor) {
                    break;
                }
                long blockLength = device.getLong(block + LoggedBlockDescriptor.BLOCK_LENGTH_OFFSET);
                ring.release(blockLength);
                released(blockLength);
                ringReleased = true;
            }
            if (ringReleased) {
                persistTail(dest); // before the space behind it is written again (the next reservation)
                any = true;
            }
        }
        if (freed == null) {
            return any;
        }
        long lowest = Long.MAX_VALUE;
        long highest = -1;
        for (LoggedMessage logged : freed) {
            device.putLong(layout.directoryEntry(rank, logged.directoryIndex()), 0);
            lowest = Math.min(lowest, logged.directoryIndex());
            highest = Math.max(highest, logged.directoryIndex());
        }
        // One persist over the span (freed indices cluster: the free list is a stack); persisting more is harmless.
        device.persist(layout.directoryEntry(rank, lowest), (highest - lowest + 1) * DIRECTORY_ENTRY_LENGTH);
        for (LoggedMessage logged : freed) {
            heap.release(logged.block(), logged.blockLength());
            freeDirectory[freeDirectoryCount++] = logged.directoryIndex();
            released(logged.blockLength());
        }
        return true;
    }

    private void released(long blockLength) {
        long bytes = LayoutConstants.align(blockLength, LayoutConstants.CACHE_LINE);
        statistics.retainedBytes -= bytes;
        statistics.bytesReclaimed += bytes;
        statistics.messagesReclaimed++;
    }

    /** Bytes the log rings hold (retained ring blocks). */
    long ringBytesInUse() {
        long bytes = 0;
        for (LogRing ring : rings) {
            bytes += ring.bytesInUse();
        }
        return bytes;
    }

    /** LoggedMessage messages retained for {@code dest}, in sequence order (tests). */
    List<LoggedMessage> retainedFor(int dest) {
        return merged(ringBlocks(dest), heapBlocks[dest]);
    }

    private static List<LoggedMessage> merged(List<LoggedMessage> inRing, java.util.Collection<LoggedMessage> inHeap) {
        List<LoggedMessage> all = new ArrayList<>(inRing);
        all.addAll(inHeap);
        all.sort(Comparator.comparingLong(LoggedMessage::sequence));
        return all;
    }

    /** This rank's retained blocks in its ring to {@code dest}: a walk of as many blocks as the ring holds. */
    private List<LoggedMessage> ringBlocks(int dest) {
        return reader.walkRing(rank, dest, rings[dest].blocks()).blocks();
    }

    /** LoggedMessage messages of this rank to {@code dest} with a sequence number above {@code publishedThrough}, in order. */
    List<LoggedMessage> unpublished(int dest, long publishedThrough) {
        List<LoggedMessage> result = new ArrayList<>();
        for (LoggedMessage logged : merged(ringBlocks(dest), heapBlocks[dest])) {
            if (logged.sequence() > publishedThrough) {
                result.add(logged);
            }
        }
        return result;
    }

    // ------------------------------------------------------------------ a restart

    /** A restarted sender has placed {@code sequence} to {@code dest} (or its predecessor did). */
    void placed(int dest, long sequence) {
        placedThrough[dest] = Math.max(placedThrough[dest], sequence);
    }

    /**
     * Restores this rank's ring to {@code dest} from a walk: leading blocks the receiver's
     * checkpoint has released ({@code released}) are gone already (an empty ring's walk reads an
     * earlier lap), so the ring restarts at the first block still retained.
     */
    void restoreRing(int dest, LogReader.RingWalk walk, long released) {
        List<LoggedMessage> kept = walk.blocks();
        int drop = 0;
        while (drop < kept.size() && kept.get(drop).sequence() <= released) {
            placed(dest, kept.get(drop).sequence());
            drop++;
        }
        kept = kept.subList(drop, kept.size());
        long bytes = 0;
        for (LoggedMessage logged : kept) {
            bytes += LayoutConstants.align(logged.blockLength(), LayoutConstants.CACHE_LINE);
            placed(dest, logged.sequence());
        }
        long tail = kept.isEmpty() ? walk.head() : kept.get(0).block();
        // a first block before the walk's tail lies after the wrap: the wrap is behind the ring then
        long wrappedAt = kept.isEmpty() || tail < walk.tail() ? -1 : walk.wrappedAt();
        rings[dest].restore(tail, walk.head(), wrappedAt, kept.size(), bytes, walk.tail());
        statistics.retainedBytes += bytes;
    }

    /**
     * Restores this rank's heap blocks from its own directory entries ({@code mine}, in any
     * order) and the free list from the entries in use; fails if two entries overlap.
     */
    void restoreHeapBlocks(List<LoggedMessage> mine, boolean[] used) {
        mine.sort(Comparator.comparingLong(LoggedMessage::sequence));
        for (LoggedMessage logged : mine) {
            if (!heap.reserve(logged.block(), logged.blockLength())) {
                throw reader.corrupt("log directory entries of rank " + rank + " overlap at heap block " + logged.block());
            }
            heapBlocks[logged.dest()].addLast(logged);
            placed(logged.dest(), logged.sequence());
            statistics.retainedBytes += LayoutConstants.align(logged.blockLength(), LayoutConstants.CACHE_LINE);
        }
        freeDirectoryCount = 0;
        for (int index = used.length - 1; index >= 0; index--) {
            if (!used[index]) {
                freeDirectory[freeDirectoryCount++] = index;
            }
        }
    }
}
