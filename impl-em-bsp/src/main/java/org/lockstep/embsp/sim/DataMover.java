package org.lockstep.embsp.sim;

import java.lang.foreign.MemorySegment;

import org.lockstep.embsp.io.ContextStore;
import org.lockstep.embsp.io.IoCategory;
import org.lockstep.embsp.io.IoDriver;
import org.lockstep.embsp.io.IoHandle;
import org.lockstep.spi.events.Events;

/**
 * Moves message bytes between VPs whose contexts may be swapped in or out (seed 003 §6.2).
 *
 * <p>Writing into a context (direct delivery): a resident receiver gets a memory copy; a
 * swapped-out receiver gets the largest block-aligned part of the message written straight into
 * its context on disk, and the unaligned first and last pieces go into the call's
 * {@link BoundaryCache} — or, for blocks it has no room for, through a read-modify-write of the
 * block. A source whose alignment differs from the destination's is shifted in memory first:
 * copied into an aligned slot of the sender's staging buffer, never moved in place (other VPs may
 * be reading the sender's memory at the same moment). α writes stay in flight ({@link Deliveries}).
 * Each delivery and pull is a {@link DeliveryEvent} when a Flight Recorder recording wants it.
 *
 * <p>Reading out of a context (pulls: Bcast, Scatter, Reduce, rendezvous receives): a resident
 * source is copied from memory; otherwise the blocks that cover the bytes are read, aligned
 * interior straight into the destination where the alignments agree, the rest through staging.
 */
public final class DataMover {
    private static final int BLOCK_LOCKS = 1024;

    private final ContextStore store;
    private final long blockSize;
    private final long memoryAlignment;
    private final Object[] blockLocks = new Object[BLOCK_LOCKS];

    DataMover(ContextStore store) {
        this.store = store;
        this.blockSize = store.blockSize();
        this.memoryAlignment = Math.max(1, store.memoryAlignment());
        for (int i = 0; i < BLOCK_LOCKS; i++) {
            blockLocks[i] = new Object();
        }
    }

    /**
     * Copies {@code source} into {@code destination}, which is in the actor's own memory (resident)
     * or external; bytes that land in the actor's context also reach {@code cache}'s copies.
     */
    public void readInto(Vp actor, Location source, MemorySegment destination, BoundaryCache cache, Deliveries inFlight) {
        read(actor, source, destination, inFlight);
        if (cache != null && actor.context().contains(destination)) {
            cache.writeThrough(actor.id(), actor.context().offsetOf(destination), destination);
        }
    }

    /** Copies {@code source} into {@code destination} (the actor's memory or external memory). */
    public void read(IoActor actor, Location source, MemorySegment destination, Deliveries inFlight) {
        long length = destination.byteSize();
        if (length == 0) {
            return;
        }
        if (source.isExternal()) {
            MemorySegment.copy(source.external(), 0, destination, 0, length);
            return;
        }
        DeliveryEvent event = Events.begun(DeliveryEvent::new);
        Context c = source.owner().context();
        boolean onDisk;
        inFlight.lockForAccess(c);
        try {
            onDisk = c.residency() != Residency.RESIDENT;
            if (onDisk) {
                readFromDisk(actor, source.owner().id(), source.offset(), destination);
            } else {
                MemorySegment.copy(c.memory(), source.offset(), destination, 0, length);
            }
        } finally {
            c.lock().readLock().unlock();
        }
        if (event != null) {
            event.moved(source.owner().id(), "read", length, onDisk);
        }
    }

    private void readFromDisk(IoActor actor, int vp, long offset, MemorySegment destination) {
        long length = destination.byteSize();
        long end = offset + length;
        long interiorStart = ceil(offset);
        long interiorEnd = floor(end);
        if (interiorEnd > interiorStart && destination.isNative()
                && (destination.address() + (interiorStart - offset)) % memoryAlignment == 0) {
            if (offset < interiorStart) {
                readThroughStaging(actor, vp, offset, interiorStart, destination, 0);
            }
            store.transfer(IoDriver.Direction.READ, vp, interiorStart,
                    destination.asSlice(interiorStart - offset, interiorEnd - interiorStart), IoCategory.DELIVERY_READ,
                    actor.meters());
            if (interiorEnd < end) {
                readThroughStaging(actor, vp, interiorEnd, end, destination, interiorEnd - offset);
            }
            return;
        }
        readThroughStaging(actor, vp, offset, end, destination, 0);
    }

    /** Reads bytes [from, to) of VP {@code vp}'s context into {@code destination} at {@code at}, block by block through slot 0. */
    private void readThroughStaging(IoActor actor, int vp, long from, long to, MemorySegment destination, long at) {
        MemorySegment slot = actor.partition().slot(0);
        long chunk = slot.byteSize();
        long blockStart = floor(from);
        long blockEnd = ceil(to);
        for (long s = blockStart; s < blockEnd; s += chunk) {
            long n = Math.min(chunk, blockEnd - s);
            store.transfer(IoDriver.Direction.READ, vp, s, slot.asSlice(0, n), IoCategory.DELIVERY_READ, actor.meters());
            long copyFrom = Math.max(s, from);
            long copyTo = Math.min(s + n, to);
            if (copyTo > copyFrom) {
                MemorySegment.copy(slot, copyFrom - s, destination, at + (copyFrom - from), copyTo - copyFrom);
            }
        }
    }

    /**
     * Delivers {@code source} (the actor's memory, or external memory) to {@code destination};
     * fragments of blocks that {@code cache} holds go there (write-through when the receiver is resident).
     */
    public void write(IoActor actor, MemorySegment source, Location destination, BoundaryCache cache, Deliveries inFlight) {
        long length = source.byteSize();
        if (length == 0) {
            return;
        }
        if (destination.isExternal()) {
            MemorySegment.copy(source, 0, destination.external(), 0, length);
            return;
        }
        DeliveryEvent event = Events.begun(DeliveryEvent::new);
        Vp receiver = destination.owner();
        Context c = receiver.context();
        boolean onDisk;
        inFlight.lockForAccess(c);
        try {
            onDisk = c.residency() != Residency.RESIDENT;
            c.delivered(destination.offset(), destination.offset() + length);
            if (onDisk) {
                writeToDisk(actor, source, receiver, destination.offset(), cache, inFlight);
            } else {
                MemorySegment.copy(source, 0, c.memory(), destination.offset(), length);
                if (cache != null) {
                    cache.writeThrough(receiver.id(), destination.offset(), source);
                }
            }
        } finally {
            c.lock().readLock().unlock();
        }
        if (event != null) {
            event.moved(receiver.id(), "write", length, onDisk);
        }
    }

    /** {@link #write} into a context that is swapped out, whose read lock the caller holds. */
    private void writeToDisk(IoActor actor, MemorySegment source, Vp receiver, long offset, BoundaryCache cache, Deliveries inFlight) {
        Context c = receiver.context();
        long end = offset + source.byteSize();
        long interiorStart = ceil(offset);
        long interiorEnd = floor(end);
        if (interiorEnd > interiorStart) {
            writeInterior(actor, receiver.id(), interiorStart, source.asSlice(interiorStart - offset, interiorEnd - interiorStart),
                    c, inFlight);
        }
        forEachFragment(offset, end, (from, to) -> {
            MemorySegment piece = source.asSlice(from - offset, to - from);
            if (cache == null || !cache.patch(receiver.id(), from, piece)) {
                if (cache != null) {
                    cache.countMiss();
                }
                readModifyWrite(actor, receiver.id(), from, piece);
            }
        });
    }

    private void writeInterior(IoActor actor, int vp, long contextOffset, MemorySegment data, Context held, Deliveries inFlight) {
        if (data.isNative() && data.address() % memoryAlignment == 0) {
            held.lock().readLock().lock();
            IoHandle h = store.submit(IoDriver.Direction.WRITE, vp, contextOffset, data, IoCategory.DELIVERY_WRITE, actor.meters());
            inFlight.add(h, -1, held);
            return;
        }
        // shift in memory: through aligned staging slots
        long chunkMax = actor.partition().slotSize();
        for (long done = 0; done < data.byteSize(); done += chunkMax) {
            long n = Math.min(chunkMax, data.byteSize() - done);
            int slot = inFlight.acquireSlot();
            MemorySegment staging = actor.partition().slot(slot).asSlice(0, n);
            MemorySegment.copy(data, done, staging, 0, n);
            held.lock().readLock().lock();
            IoHandle h = store.submit(IoDriver.Direction.WRITE, vp, contextOffset + done, staging, IoCategory.DELIVERY_WRITE,
                    actor.meters());
            inFlight.add(h, slot, held);
        }
    }

    /** Patches {@code piece} (inside one block) into VP {@code vp}'s context on disk: read the block, change it, write it back. */
    private void readModifyWrite(IoActor actor, int vp, long offset, MemorySegment piece) {
        long block = floor(offset);
        MemorySegment slot = actor.partition().slot(0).asSlice(0, blockSize);
        synchronized (blockLocks[Math.floorMod(vp * 0x9E3779B97F4A7C15L + block / blockSize, BLOCK_LOCKS)]) {
            store.transfer(IoDriver.Direction.READ, vp, block, slot, IoCategory.DELIVERY_READ, actor.meters());
            MemorySegment.copy(piece, 0, slot, offset - block, piece.byteSize());
            store.transfer(IoDriver.Direction.WRITE, vp, block, slot, IoCategory.DELIVERY_WRITE, actor.meters());
        }
    }

    @FunctionalInterface
    private interface Piece {
        void accept(long from, long to);
    }

    /** The parts of [offset, end) outside its block-aligned interior, each inside one block. */
    private void forEachFragment(long offset, long end, Piece piece) {
        long interiorStart = ceil(offset);
        long interiorEnd = floor(end);
        if (interiorEnd > interiorStart) {
            if (offset < interiorStart) {
                piece.accept(offset, interiorStart);
            }
            if (interiorEnd < end) {
                piece.accept(interiorEnd, end);
            }
            return;
        }
        long boundary = Math.min(end, floor(offset) + blockSize);
        piece.accept(offset, boundary);
        if (boundary < end) {
            piece.accept(boundary, end);
        }
    }

    private long floor(long x) {
        return Math.floorDiv(x, blockSize) * blockSize;
    }

    private long ceil(long x) {
        return -Math.floorDiv(-x, blockSize) * blockSize;
    }
}
