package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.Op;
import org.lockstep.pcie.layout.CollectiveAreaDescriptor;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The allreduces on the device ({@link DeviceCollectives} chooses between them): by
 * contributions, every rank writing its contribution once and folding all of them itself; and
 * direct, a reduce-scatter and an allgather over the members' exposed buffers. Both fold every
 * element in the order {@code c0 op (c1 op (… op c(p−1)))}, so every rank gets the same bits and
 * a non-commutative operation sees rank order.
 */
class DeviceAllreduces {
    final CollectiveArea area;
    private final ExternalMemory device;

    DeviceAllreduces(CollectiveArea area) {
        this.area = area;
        this.device = area.device;
    }

    /**
     * The allreduce by contributions, a chunk at a time through the members' data areas — as a
     * {@link DeviceOperation}, which the blocking allreduce runs to its end.
     */
    DeviceOperation contributions(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        return new Contributions(send == Communicator.IN_PLACE ? recv : send, recv, count, type, op);
    }

    private final class Contributions extends DeviceOperation {
        private final MemorySegment input;
        private final MemorySegment recv;
        private final long count;
        private final Datatype type;
        private final Op op;
        private final long chunkElements;
        /** First element of the chunk in hand. */
        private long first;
        /** The chunk in hand, 0 until taken. */
        private long chunk;
        /** Whether this rank's contribution to the chunk in hand is published (then it waits for the others'). */
        private boolean contributed;
        /** The next member to poll. */
        private int next;

        Contributions(MemorySegment input, MemorySegment recv, long count, Datatype type, Op op) {
            super(DeviceAllreduces.this.area);
            this.input = input;
            this.recv = recv;
            this.count = count;
            this.type = type;
            this.op = op;
            this.chunkElements = area.chunkBytes / type.size();
        }

        @Override
        boolean proceed() {
            long elementSize = type.size();
            while (first < count) {
                if (chunk == 0) {
                    chunk = area.nextChunk();
                    contributed = false;
                    next = 1;
                }
                long elements = Math.min(chunkElements, count - first);
                long offset = first * elementSize;
                long length = elements * elementSize;
                long halfOffset = area.halfOffset(chunk, count * elementSize);
                if (!contributed) {
                    next = reachedFrom(next, CollectiveAreaDescriptor.CONSUMED_OFFSET, chunk - 2, "allreduce");
                    if (next < area.size) {
                        return false;
                    }
                    area.write(area.block(area.rank) + halfOffset, input, offset, length);
                    area.publish(chunk);
                    contributed = true;
                    next = 1;
                }
                next = reachedFrom(next, CollectiveAreaDescriptor.PUBLISHED_OFFSET, chunk, "allreduce");
                if (next < area.size) {
                    return false;
                }
                fold(halfOffset, offset, elements, length);
                first += elements;
                chunk = 0;
            }
            return true;
        }

        /** The same fold on every rank, from the highest rank down: c0 op (c1 op (… op c(p−1))); then the chunk is consumed. */
        private void fold(long halfOffset, long offset, long elements, long length) {
            // Both operands of the fold in process memory: the operation's accesses then meet one kind of segment.
            long scratchHalf = Math.min(area.chunkBytes, count * type.size());
            MemorySegment scratchBoth = area.scratch(2 * scratchHalf);
            MemorySegment result = scratchBoth.asSlice(scratchHalf, length);
            MemorySegment operand = scratchBoth.asSlice(0, length);
            area.read(area.block(area.size - 1) + halfOffset, result, 0, length);
            for (int q = area.size - 2; q >= 0; q--) {
                area.read(area.block(q) + halfOffset, operand, 0, length);
                op.apply(operand, result, elements, type);
            }
            area.consume(chunk);
            MemorySegment.copy(result, 0, recv, offset, length);
        }
    }

    /**
     * The direct allreduce — a reduce-scatter and an allgather that read the members' own device
     * buffers. Every rank exposes its input and its result buffer (a staged copy where one is not a
     * device buffer); rank r folds segment r of every input, {@code c0 op (c1 op (… op c(p−1)))},
     * into segment r of its result and publishes; then every rank copies the other segments from
     * their owners' results. Each segment is folded once, so every rank gets the same bits. False
     * (after every member has seen it) when some member had no room to stage: all then take the
     * point-to-point algorithm.
     *
     * <p>Why in place is safe: rank q reads segment q of rank r's input, which is segment q of r's
     * result when in place; r overwrites it only after q has published its folded segment q.
     */
    boolean direct(MemorySegment send, MemorySegment recv, long count, Datatype type, Op op) {
        long n = count * type.size();
        MemorySegment input = send == Communicator.IN_PLACE ? recv : send;
        long exposedChunk = area.nextChunk();
        long foldedChunk = area.nextChunk();
        area.awaitAllConsumed(exposedChunk - 1, "allreduce");
        CollectiveArea.Staged stagedInput = null;
        CollectiveArea.Staged stagedResult = null;
        try {
            long inputOffset = area.site.deviceOffset(input, n);
            if (inputOffset < 0 && (stagedInput = area.stage(0, n)) != null) {
                device.write(stagedInput.offset(), input, 0, n);
                inputOffset = stagedInput.offset();
            }
            long resultOffset = area.site.deviceOffset(recv, n);
            if (resultOffset < 0 && (stagedResult = area.stage(1, n)) != null) {
                resultOffset = stagedResult.offset();
            }
            boolean ready = inputOffset >= 0 && resultOffset >= 0;
            area.expose(exposedChunk, ready ? inputOffset : -1, ready ? resultOffset : -1, n);
            area.publish(exposedChunk);
            if (!foldExposed(recv, count, type, op, resultOffset, stagedResult != null, exposedChunk, foldedChunk)) {
                return false;
            }
            area.awaitAllConsumed(foldedChunk, "allreduce"); // nobody reads this rank's buffers any more
            return true;
        } finally {
            area.unstage(stagedInput);
            area.unstage(stagedResult);
        }
    }

    /** Once every member has exposed its buffers: the segments, or false if some member had none (no room to stage). */
    private boolean foldExposed(MemorySegment recv, long count, Datatype type, Op op, long resultOffset, boolean resultStaged,
                                long exposedChunk, long foldedChunk) {
        int size = area.size;
        long n = count * type.size();
        long[] inputs = new long[size];
        long[] results = new long[size];
        boolean folded = false;
        try {
            area.awaitAllPublished(exposedChunk, "allreduce");
            boolean allReady = true;
            for (int q = 0; q < size; q++) {
                inputs[q] = area.exposedSource(q, n, "allreduce");
                results[q] = area.exposedResult(q, n, "allreduce");
                allReady &= inputs[q] >= 0 && results[q] >= 0;
            }
            if (!allReady) {
                return false;
            }
            segments(recv, count, type, op, inputs, results, resultOffset, resultStaged, foldedChunk);
            folded = true;
            return true;
        } finally {
            if (!folded) {
                // no room on some member, sizes that differ (every member then fails), or a user operation
                // that threw: the chunk ends here, so that nobody waits for this rank for ever
                area.publish(foldedChunk);
                area.consume(foldedChunk);
            }
        }
    }

    /** The fold of this rank's segment, then the other segments from their owners' results. */
    private void segments(MemorySegment recv, long count, Datatype type, Op op, long[] inputs, long[] results,
                          long resultOffset, boolean resultStaged, long foldedChunk) {
        int size = area.size;
        int rank = area.rank;
        long elementSize = type.size();
        long first = segmentStart(rank, count) * elementSize;
        long length = segmentStart(rank + 1, count) * elementSize - first;
        MemorySegment folded = area.scratch(length).asSlice(0, length);
        MemorySegment whole = device.asSegment();
        device.read(inputs[foldedMember(size - 1)] + first, folded, 0, length);
        for (int k = size - 2; k >= 0; k--) {
            op.apply(whole.asSlice(inputs[foldedMember(k)] + first, length), folded, length / elementSize, type);
        }
        device.write(resultOffset + first, folded, 0, length);
        area.publish(foldedChunk);
        if (resultStaged) {
            MemorySegment.copy(folded, 0, recv, first, length);
        }
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            long from = segmentStart(q, count) * elementSize;
            long bytes = segmentStart(q + 1, count) * elementSize - from;
            area.awaitPublished(q, foldedChunk, "allreduce");
            device.read(results[q] + from, recv, from, bytes);
        }
        area.consume(foldedChunk);
    }

    /** The member whose input is folded as operand {@code k} of {@code c0 op (c1 op (… op c(p−1)))} (the kit's faulty fold differs). */
    int foldedMember(int k) {
        return k;
    }

    /** First element of segment {@code segment} of {@code count} elements split over the members (the last ends at count). */
    private long segmentStart(int segment, long count) {
        return count / area.size * segment + Math.min(segment, count % area.size);
    }
}
