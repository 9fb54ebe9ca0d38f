package org.lockstep.pcie.collective;

import static org.lockstep.pcie.layout.CollectiveAreaDescriptor.*;

import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.pcie.layout.MailboxLayout;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.spi.device.WordRegion;
import org.lockstep.spi.messaging.IdleStrategy;

/**
 * One communicator's slot of the collective area ({@link CollectiveAreaDescriptor}) and the
 * protocol the device-native collectives share on it: each member's block with its arrival,
 * published and consumed words (one writer each), the chunk sequence every member counts alike,
 * the data area's two halves, the exposed line, staging, and the waits, which watch the member
 * they wait on and fail with {@code PROC_FAILED} if it is gone, never hang.
 */
final class CollectiveArea {
    /** Idle rounds between two calls of the transport's progress in a device-native wait. */
    static final int PROGRESS_INTERVAL = 32;

    final CollectiveSite site;
    final ExternalMemory device;
    final int size;
    final int rank;
    final long chunkBytes;
    /** Block of each member in this communicator's slot. */
    final long[] blocks;
    /**
     * The members' blocks as one region of the device, checked once: the words every collective
     * polls and the halves it copies through go by it (on a mapped device without per-access checks
     * and counters); null when the communicator has no slot.
     */
    private final WordRegion words;
    private long chunkSequence;
    private MemorySegment scratch;

    /** {@code blocks} of {@code blockLength} bytes each, or null when the communicator has no slot (no device collective runs). */
    CollectiveArea(CollectiveSite site, long[] blocks, long blockLength, long chunkBytes) {
        this.site = site;
        this.device = site.device();
        this.size = site.size();
        this.rank = site.rank();
        this.blocks = blocks == null ? new long[size] : blocks;
        this.chunkBytes = chunkBytes;
        this.words = blocks == null ? null : spanning(device, blocks, blockLength);
    }

    private static WordRegion spanning(ExternalMemory device, long[] blocks, long blockLength) {
        long first = Long.MAX_VALUE;
        long end = 0;
        for (long block : blocks) {
            first = Math.min(first, block);
            end = Math.max(end, block + blockLength);
        }
        return device.region(first, end - first);
    }

    // ================================================================ words and halves of the blocks

    /** The word at device offset {@code address} (in a member's block), read with acquire. */
    long getAcquire(long address) {
        return words.getLongAcquire(address - words.base());
    }

    /** Release store of the word at device offset {@code address} (in this rank's block). */
    void putRelease(long address, long value) {
        words.putLongRelease(address - words.base(), value);
    }

    long getPlain(long address) {
        return words.getLong(address - words.base());
    }

    void putPlain(long address, long value) {
        words.putLong(address - words.base(), value);
    }

    /** Copies {@code length} bytes at device offset {@code address} (in a member's block) into {@code target}. */
    void read(long address, MemorySegment target, long targetOffset, long length) {
        words.read(address - words.base(), target, targetOffset, length);
    }

    /** Copies {@code length} bytes of {@code source} to device offset {@code address} (in this rank's block). */
    void write(long address, MemorySegment source, long sourceOffset, long length) {
        words.write(address - words.base(), source, sourceOffset, length);
    }

    /** The block of member {@code q}. */
    long block(int q) {
        return blocks[q];
    }

    /** The next chunk number (every member takes the same numbers in the same order). */
    long nextChunk() {
        return ++chunkSequence;
    }

    /** The chunk number the next {@link #nextChunk} would give, without taking it. */
    long peekChunk() {
        return chunkSequence + 1;
    }

    /** Takes {@code chunk}, which {@link #peekChunk} gave. */
    void takeChunk(long chunk) {
        chunkSequence = chunk;
    }

    /** Publishes this rank's {@code chunk} (with its exposed line or data, written before). */
    void publish(long chunk) {
        putRelease(blocks[rank] + PUBLISHED_OFFSET, chunk);
    }

    /** This rank has consumed {@code chunk}. */
    void consume(long chunk) {
        putRelease(blocks[rank] + CONSUMED_OFFSET, chunk);
    }

    /**
     * Where in a block chunk {@code chunk} of a collective of {@code n} bytes lies: in the
     * published line itself when the whole collective fits an inline half (the reader then gets
     * the data with the line it watches: one line from another core instead of two), else in the
     * data area. Halves alternate with the chunk either way.
     */
    long halfOffset(long chunk, long n) {
        return n <= INLINE_HALF_BYTES ? PUBLISHED_OFFSET + INLINE_OFFSET + (chunk & 1) * INLINE_HALF_BYTES
                : DATA_OFFSET + (chunk & 1) * chunkBytes;
    }

    // ================================================================ waiting

    /** Waits until every other member has published chunk {@code chunk} (and with it its exposed line). */
    void awaitAllPublished(long chunk, String collective) {
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            awaitWord(blocks[q] + PUBLISHED_OFFSET, chunk, q, collective);
        }
    }

    /** Waits until member {@code q} has published chunk {@code chunk}. */
    void awaitPublished(int q, long chunk, String collective) {
        awaitWord(blocks[q] + PUBLISHED_OFFSET, chunk, q, collective);
    }

    /** Waits until every member has consumed chunk {@code chunk} (a half is free once the chunk two before is). */
    void awaitAllConsumed(long chunk, String collective) {
        if (chunk <= 0) {
            return;
        }
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                awaitWord(blocks[q] + CONSUMED_OFFSET, chunk, q, collective);
            }
        }
    }

    /**
     * Waits until the word at {@code address}, written by member {@code writer} only, reaches
     * {@code value}. Fails if the writer is gone and the word has not got there (read again after
     * the writer's end was seen: what it wrote before it ended is visible then).
     */
    void awaitWord(long address, long value, int writer, String collective) {
        if (getAcquire(address) >= value) {
            return;
        }
        IdleStrategy idle = site.newIdleStrategy();
        int rounds = 0;
        while (getAcquire(address) < value) {
            if (++rounds % PROGRESS_INTERVAL == 0) {
                site.progress();
                if (site.isGone(writer) && getAcquire(address) < value) {
                    throw site.failure(writer, collective);
                }
            }
            idle.idle();
        }
    }

    /** Runs {@code operation} to its end on this thread: the blocking form of a device collective. */
    void run(DeviceOperation operation) {
        runUntil(operation);
    }

    /**
     * Polls {@code done} until it says so, backing off between polls and running the transport's
     * progress (which also notices failed peers and moves the rank's other requests) now and then.
     */
    void runUntil(BooleanSupplier done) {
        if (done.getAsBoolean()) {
            return;
        }
        IdleStrategy idle = site.newIdleStrategy();
        int rounds = 0;
        while (!done.getAsBoolean()) {
            if (++rounds % PROGRESS_INTERVAL == 0) {
                site.progress();
            }
            idle.idle();
        }
    }

    // ================================================================ exposed buffers

    /** Writes this rank's exposed line for {@code chunk}; the release store of the published chunk that follows makes it visible. */
    void expose(long chunk, long source, long result, long length) {
        long line = blocks[rank] + EXPOSED_OFFSET;
        putPlain(line + EXPOSED_SOURCE, source);
        putPlain(line + EXPOSED_RESULT, result);
        putPlain(line + EXPOSED_LENGTH, length);
        putPlain(line + EXPOSED_CHUNK, chunk);
    }

    /** The chunk member {@code q}'s exposed line was written for. */
    long exposedChunk(int q) {
        return getPlain(blocks[q] + EXPOSED_OFFSET + EXPOSED_CHUNK);
    }

    /** The source buffer member {@code q} exposed (its chunk already awaited), or -1 if it has none. */
    long exposedSource(int q, long length, String collective) {
        return exposed(q, EXPOSED_SOURCE, length, collective);
    }

    /** The result buffer member {@code q} exposed (its chunk already awaited), or -1 if it has none. */
    long exposedResult(int q, long length, String collective) {
        return exposed(q, EXPOSED_RESULT, length, collective);
    }

    /**
     * An offset member {@code q} exposed, checked: the member must have exposed as many bytes as
     * this rank expects (MPI requires matching sizes), inside its own heap partition or data area —
     * a corrupt or hostile line fails the collective, it is never followed outside them.
     */
    private long exposed(int q, int field, long length, String collective) {
        long line = blocks[q] + EXPOSED_OFFSET;
        long offset = getPlain(line + field);
        long exposedLength = getPlain(line + EXPOSED_LENGTH);
        // the size first, also when nothing is exposed: every member must see a mismatch
        if (exposedLength != length) {
            throw new LockstepException(ErrorClass.TRUNCATE, collective + ": rank " + q + " of the communicator gives " + exposedLength
                    + " bytes where rank " + rank + " expects " + length + " (counts and datatypes must match on every rank)");
        }
        if (offset < 0) {
            return -1;
        }
        MailboxLayout layout = site.layout();
        long partition = layout.heapPartition(site.worldRank(q));
        long dataArea = blocks[q] + DATA_OFFSET;
        boolean inPartition = offset >= partition && offset - partition <= layout.heapAllocatorLength() - length;
        boolean inDataArea = offset >= dataArea && offset - dataArea <= 2 * chunkBytes - length;
        if (!inPartition && !inDataArea) {
            throw new LockstepException(ErrorClass.INTERN, collective + ": rank " + q + " exposed [" + offset + ", +" + length
                    + ") outside its heap partition [" + partition + ", +" + layout.heapAllocatorLength() + ") and its data area ["
                    + dataArea + ", +" + 2 * chunkBytes + ")");
        }
        return offset;
    }

    // ================================================================ staging

    /** Device memory that stands in for a buffer in process memory; {@code buffer} non-null if allocated for it. */
    record Staged(long offset, MemorySegment buffer) {
    }

    /**
     * Room in the device for {@code n} bytes of this rank: half {@code half} of its data area if
     * they fit (a direct collective starts once every member has consumed every earlier chunk, so
     * both halves are free until it ends), else a buffer from its heap partition; null if neither.
     */
    Staged stage(int half, long n) {
        if (n <= chunkBytes) {
            return new Staged(blocks[rank] + DATA_OFFSET + half * chunkBytes, null);
        }
        MemorySegment buffer = site.allocateStaging(n);
        return buffer == null ? null : new Staged(site.deviceOffset(buffer, n), buffer);
    }

    void unstage(Staged staged) {
        if (staged != null && staged.buffer() != null) {
            site.freeStaging(staged.buffer());
        }
    }

    /** Process memory for folds and copies, reused. */
    MemorySegment scratch(long bytes) {
        if (scratch == null || scratch.byteSize() < bytes) {
            scratch = MemorySegment.ofArray(new long[(int) ((bytes + Long.BYTES - 1) / Long.BYTES)]);
        }
        return scratch;
    }
}
