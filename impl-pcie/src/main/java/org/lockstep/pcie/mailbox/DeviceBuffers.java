package org.lockstep.pcie.mailbox;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.pcie.layout.RankTableDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The buffers a rank's program allocates from its communicator ({@code MPI_Alloc_mem}): device
 * memory, so that a large message into one of them is delivered with a single copy.
 *
 * <p>Where they live: in the rank's own heap partition, taken by the same {@link HeapAllocator}
 * as the payload blocks this rank sends, but from the top of the partition down (payload blocks
 * come from the bottom, so the two rarely interleave). A separate region would need a new layout
 * section and a fixed split decided when the device is formatted; sharing the partition lets a
 * program that sends little use most of it for buffers and needs no format change. Buffers may
 * take the partition except a reserve of two largest fragments, so this rank can always send.
 * Freed buffers go back to the allocator and are reused, by buffers or payloads. Asking for more
 * than is free gives {@link ErrorClass#NO_MEM} naming the sizes and the option to raise.
 *
 * <p>The bytes held are announced in this rank's rank-table entry
 * ({@link RankTableDescriptor#DEVICE_BUFFER_BYTES_OFFSET}): a sender offers the single-copy
 * rendezvous only to a receiver that holds device buffers. Used under the endpoint's lock.
 */
final class DeviceBuffers {
    private final ExternalMemory device;
    private final MailboxLayout layout;
    private final int rank;
    private final HeapAllocator heap;
    private final long reserve;
    /** Live buffers: device offset to the length allocated (whole cache lines). */
    private final TreeMap<Long, Long> live = new TreeMap<>();
    private long bytesHeld;

    DeviceBuffers(ExternalMemory device, MailboxLayout layout, int rank, HeapAllocator heap, long reserve) {
        this.device = device;
        this.layout = layout;
        this.rank = rank;
        this.heap = heap;
        this.reserve = reserve;
    }

    /**
     * A device-resident segment of {@code byteSize} bytes, cache-line aligned; {@code reclaim}
     * is run once to get payload blocks back before giving up.
     */
    MemorySegment allocate(long byteSize, Runnable reclaim) {
        if (byteSize < 0) {
            throw new LockstepException(ErrorClass.ARG, "cannot allocate " + byteSize + " bytes");
        }
        long rounded = LayoutConstants.align(Math.max(byteSize, 1), LayoutConstants.CACHE_LINE);
        long allowed = heap.capacity() - reserve - bytesHeld;
        if (rounded > allowed) {
            throw noMemory(byteSize, allowed);
        }
        long offset = heap.allocateFromTop(rounded);
        if (offset == HeapAllocator.FAILED) {
            reclaim.run();
            offset = heap.allocateFromTop(rounded);
            if (offset == HeapAllocator.FAILED) {
                throw noContiguousMemory(byteSize, rounded);
            }
        }
        long partition = layout.heapPartition(rank);
        if (offset < partition || offset - partition > layout.heapAllocatorLength() - rounded) {
            // never hand out another rank's memory, whatever the allocator says
            throw new LockstepException(ErrorClass.INTERN, "rank " + rank + ": heap allocator gave [" + offset + ", +" + rounded
                    + ") outside its allocator's part of the partition [" + partition + ", +" + layout.heapAllocatorLength() + ")");
        }
        live.put(offset, rounded);
        bytesHeld += rounded;
        announce();
        return device.asSegment().asSlice(offset, byteSize);
    }

    private LockstepException noMemory(long byteSize, long available) {
        return new LockstepException(ErrorClass.NO_MEM, "rank " + rank + " cannot allocate " + byteSize
                + " bytes of device memory: " + Math.max(0, available) + " bytes of its heap partition of " + heap.capacity()
                + " are free for buffers (" + bytesHeld + " held by buffers, " + reserve
                + " kept for sending); free buffers or raise " + MailboxOptions.HEAP_PER_RANK);
    }

    /**
     * The budget allowed the buffer, but no free extent is large enough: the free bytes are split
     * between payload blocks of messages not yet released by their receivers, or between buffers.
     */
    private LockstepException noContiguousMemory(long byteSize, long rounded) {
        long free = heap.capacity() - heap.bytesInUse();
        long payloads = Math.max(0, heap.bytesInUse() - bytesHeld);
        return new LockstepException(ErrorClass.NO_MEM, "rank " + rank + " cannot allocate " + byteSize
                + " bytes of device memory: its heap partition of " + heap.capacity() + " bytes has " + free
                + " bytes free, but the largest free piece is " + heap.largestFree() + " bytes (fragmented; it needs " + rounded
                + " in one piece): " + payloads + " bytes are held by payloads of messages this rank sent that their receivers"
                + " have not yet taken, " + bytesHeld + " by buffers; receive (or checkpoint) before allocating, allocate large"
                + " buffers first, or raise " + MailboxOptions.HEAP_PER_RANK);
    }

    /** Frees a segment {@link #allocate} returned. */
    void free(MemorySegment segment) {
        long offset = offsetOf(segment);
        Long length = offset < 0 ? null : live.get(offset);
        if (length == null || LayoutConstants.align(Math.max(segment.byteSize(), 1), LayoutConstants.CACHE_LINE) != length) {
            throw new LockstepException(ErrorClass.ARG, "segment of " + segment.byteSize()
                    + " bytes was not allocated by this communicator (or was freed already)");
        }
        live.remove(offset);
        heap.release(offset, length);
        bytesHeld -= length;
        announce();
    }

    /**
     * The device offset of {@code bytes} bytes at the start of {@code buffer} if they lie inside one
     * live buffer of this rank, else -1 (process memory, or device memory that is not a buffer).
     */
    long deviceOffset(MemorySegment buffer, long bytes) {
        if (live.isEmpty()) {
            return -1;
        }
        long offset = offsetOf(buffer);
        if (offset < 0 || bytes > buffer.byteSize()) {
            return -1;
        }
        Map.Entry<Long, Long> owner = live.floorEntry(offset);
        return owner != null && offset - owner.getKey() <= owner.getValue() - bytes ? offset : -1;
    }

    /** Where {@code segment} starts in the device, or -1 if it is not device memory. */
    private long offsetOf(MemorySegment segment) {
        if (!segment.isNative()) {
            return -1;
        }
        MemorySegment whole = device.asSegment();
        long offset = segment.address() - whole.address();
        return offset >= 0 && offset <= whole.byteSize() - segment.byteSize() ? offset : -1;
    }

    long bytesHeld() {
        return bytesHeld;
    }

    /** At close: the buffers go with the device. */
    void forgetAll() {
        live.clear();
        bytesHeld = 0;
        announce();
    }

    private void announce() {
        device.putLongRelease(layout.rankEntry(rank) + RankTableDescriptor.DEVICE_BUFFER_BYTES_OFFSET, bytesHeld);
    }
}
