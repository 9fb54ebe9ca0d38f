package org.lockstep.pcie.mailbox;

import org.lockstep.pcie.layout.HeapBlockDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * Where the payload of a piece that does not travel in its slot lives: a block of this rank's
 * heap partition or, when the job logs, of its log ring to the destination. The {@link Sender}
 * reserves a block, writes the payload into it before any slot is taken, and gives back a block
 * it never published. Used under the endpoint's lock.
 */
final class PayloadBlocks {
    private final ExternalMemory device;
    private final HeapAllocator heap;
    private final ChannelLog log;
    private final SingleCopy singleCopy;
    /** Released slots free heap blocks: looked at before a reservation gives up. */
    private final AwaitedReleases awaitingRelease;
    private final TransportStatistics statistics;

    PayloadBlocks(ExternalMemory device, HeapAllocator heap, ChannelLog log, SingleCopy singleCopy, AwaitedReleases awaitingRelease,
                  TransportStatistics statistics) {
        this.device = device;
        this.heap = heap;
        this.log = log;
        this.singleCopy = singleCopy;
        this.awaitingRelease = awaitingRelease;
        this.statistics = statistics;
    }

    /** Bytes of this rank's heap partition: no block can be larger. */
    long capacity() {
        return heap.capacity();
    }

    /**
     * A block for a payload: a logged message goes to the log ring to its destination if it has
     * room, else to the heap. {@link HeapAllocator#FAILED} when there is none.
     */
    long reserve(int dest, long blockLength, boolean logged) {
        long block = logged ? log.reserve(dest, blockLength) : ChannelLog.IN_HEAP;
        if (block == ChannelLog.FULL) {
            return HeapAllocator.FAILED;
        }
        if (block == ChannelLog.IN_HEAP) {
            block = heap.allocate(blockLength);
        }
        if (block == HeapAllocator.FAILED) {
            awaitingRelease.reclaim();
            log.reclaim();
            block = heap.allocate(blockLength);
            if (block == HeapAllocator.FAILED) {
                statistics.heapFullWaits++;
                log.noteFull();
            }
        }
        return block;
    }

    /** Writes the payload into its block; before any slot is taken, so a failing copy from the caller's buffer costs no ticket. */
    void write(SendRequest send, Placement p, long block) {
        try {
            device.putLong(block + HeapBlockDescriptor.RELEASED_TICKET_OFFSET, 0);
            if (p.kind == Placement.Kind.OFFER) {
                singleCopy.prepareBlock(block);
            }
            if (p.length > 0) {
                device.write(block + HeapBlockDescriptor.PAYLOAD_OFFSET, send.buffer, send.placedBytes, p.length);
            }
        } catch (RuntimeException e) {
            releaseUnpublished(send.dest, block, p.blockLength());
            throw e;
        }
    }

    /** Gives back a block that was never published: a pending log ring reservation, or a heap block. */
    void releaseUnpublished(int dest, long block, long blockLength) {
        if (!log.rollback(dest, block)) {
            heap.release(block, blockLength);
        }
    }
}
