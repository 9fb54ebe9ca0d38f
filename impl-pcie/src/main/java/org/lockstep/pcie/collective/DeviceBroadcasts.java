package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.pcie.layout.LayoutConstants;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The broadcasts on the device ({@link DeviceCollectives} chooses among them): written once
 * through the root's data area, a chunk at a time; direct, every rank copying from the root's
 * device buffer; and shared, rank k copying piece k of the root's buffer into every member's.
 */
class DeviceBroadcasts {
    final CollectiveArea area;
    private final ExternalMemory device;

    DeviceBroadcasts(CollectiveArea area) {
        this.area = area;
        this.device = area.device;
    }

    /**
     * The broadcast written once: the root writes each chunk to its data area, in two halves, and
     * every rank reads it — as a {@link DeviceOperation}, which the blocking broadcast runs to its end.
     */
    DeviceOperation writtenOnce(MemorySegment buffer, long n, int root) {
        return new WrittenOnce(buffer, n, root);
    }

    /** Whether a non-root waits for the root to publish a chunk before it reads it (always; the kit's faulty broadcast does not). */
    boolean awaitsPublication() {
        return true;
    }

    private final class WrittenOnce extends DeviceOperation {
        private final MemorySegment buffer;
        private final long n;
        private final int root;
        private long offset;
        /** The chunk of the piece at {@link #offset}, 0 until taken. */
        private long chunk;
        /** The root's poll of the members' consumed words: the next member to look at. */
        private int next;

        WrittenOnce(MemorySegment buffer, long n, int root) {
            super(DeviceBroadcasts.this.area);
            this.buffer = buffer;
            this.n = n;
            this.root = root;
        }

        @Override
        boolean proceed() {
            while (offset < n) {
                if (chunk == 0) {
                    chunk = area.nextChunk();
                    next = 1;
                }
                long length = Math.min(area.chunkBytes, n - offset);
                long half = area.block(root) + area.halfOffset(chunk, n);
                if (area.rank == root) {
                    // the half is free once every member has consumed the chunk two before
                    next = reachedFrom(next, CollectiveAreaDescriptor.CONSUMED_OFFSET, chunk - 2, "bcast");
                    if (next < area.size) {
                        return false;
                    }
                    area.write(half, buffer, offset, length);
                    area.publish(chunk);
                } else {
                    if (awaitsPublication() && !reached(area.block(root) + CollectiveAreaDescriptor.PUBLISHED_OFFSET, chunk, root, "bcast")) {
                        return false;
                    }
                    area.read(half, buffer, offset, length);
                }
                area.consume(chunk);
                offset += length;
                chunk = 0;
            }
            return true;
        }
    }

    /**
     * The direct broadcast, if the root's buffer is a device buffer: the root exposes it with its
     * next chunk, every other rank copies it from there and consumes the chunk, and the root returns
     * once all have. The root alone knows where its buffer lives, so the others learn from the
     * exposed line whether that chunk is direct or the first of the chunked broadcast; false (and
     * nothing consumed) when it is chunked.
     */
    boolean direct(MemorySegment buffer, long n, int root) {
        long chunk = area.peekChunk();
        if (area.rank == root) {
            long offset = area.site.deviceOffset(buffer, n);
            if (offset < 0) {
                return false;
            }
            area.takeChunk(chunk);
            area.awaitAllConsumed(chunk - 1, "bcast"); // nobody still reads the exposed line
            area.expose(chunk, offset, -1, n);
            area.publish(chunk);
            area.consume(chunk);
            area.awaitAllConsumed(chunk, "bcast");
            return true;
        }
        area.awaitPublished(root, chunk, "bcast");
        if (area.exposedChunk(root) != chunk) {
            return false;
        }
        area.takeChunk(chunk);
        try {
            device.read(area.exposedSource(root, n, "bcast"), buffer, 0, n);
        } finally {
            // consumed even when the sizes do not match: the root must not wait for this rank for ever
            area.consume(chunk);
        }
        return true;
    }

    /**
     * The direct broadcast of a large message with the copying shared out: every rank exposes its
     * buffer (the root as source, the others as results, -1 if process memory); rank k copies piece
     * k of the root's buffer into every result that is exposed, and a rank whose buffer is process
     * memory copies the whole message itself. With p ranks each copies (p − 1)/p of the message
     * instead of the receivers copying all of it while the root waits. All return once all are done.
     * False when the root's buffer is not a device buffer (every member sees it).
     */
    boolean shared(MemorySegment buffer, long n, int root) {
        int rank = area.rank;
        int size = area.size;
        long chunk = area.nextChunk();
        area.awaitAllConsumed(chunk - 1, "bcast");
        long own = area.site.deviceOffset(buffer, n);
        area.expose(chunk, rank == root ? own : -1, rank == root ? -1 : own, n);
        area.publish(chunk);
        boolean direct = false;
        try {
            long source = -1;
            long[] results = new long[size];
            area.awaitAllPublished(chunk, "bcast");
            for (int q = 0; q < size; q++) {
                if (q == root) {
                    source = area.exposedSource(q, n, "bcast");
                } else {
                    results[q] = area.exposedResult(q, n, "bcast");
                }
            }
            if (source >= 0) {
                direct = true;
                long from = pieceStart(rank, n);
                long length = pieceLength(pieceStart(rank + 1, n) - from);
                MemorySegment whole = device.asSegment();
                for (int k = 1; k <= size; k++) {
                    int q = (rank + k) % size; // this rank's own result last: the others wait for theirs
                    if (q != root && results[q] >= 0 && length > 0) {
                        device.read(source + from, whole, results[q] + from, length);
                    }
                }
                if (rank != root && results[rank] < 0) {
                    device.read(source, buffer, 0, n);
                }
            }
        } finally {
            // also when the sizes differ (every rank that sees it fails): nobody waits for this rank for ever
            area.consume(chunk);
        }
        if (direct) {
            area.awaitAllConsumed(chunk, "bcast"); // every piece is in place, and nobody reads the root's buffer any more
        }
        return direct;
    }

    /** Bytes of this rank's piece that it copies into the others' buffers (all of them; the kit's faulty broadcast differs). */
    long pieceLength(long length) {
        return length;
    }

    /** Where piece {@code piece} of an {@code n}-byte message starts: pieces end on cache lines, so no two copiers share one. */
    private long pieceStart(int piece, long n) {
        return piece >= area.size ? n : Math.min(n, n / area.size * piece & -LayoutConstants.CACHE_LINE);
    }
}
