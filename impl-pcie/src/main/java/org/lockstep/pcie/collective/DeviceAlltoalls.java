package org.lockstep.pcie.collective;

import java.lang.foreign.MemorySegment;

import org.lockstep.api.Communicator;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The alltoalls on the device ({@link DeviceCollectives} chooses between them): written once,
 * each rank writing all its blocks to its data area and every other rank reading its own; and
 * direct, each rank copying its block of every member's exposed send buffer.
 */
final class DeviceAlltoalls {
    private final CollectiveArea area;
    private final ExternalMemory device;

    DeviceAlltoalls(CollectiveArea area) {
        this.area = area;
        this.device = area.device;
    }

    /** The alltoall written once through the members' data areas (small blocks). */
    void writtenOnce(MemorySegment send, long block, MemorySegment recv) {
        int rank = area.rank;
        int size = area.size;
        MemorySegment input = send == Communicator.IN_PLACE ? recv : send;
        long chunk = area.nextChunk();
        long halfOffset = area.halfOffset(chunk, block * size);
        area.awaitAllConsumed(chunk - 2, "alltoall");
        // All blocks go to the device before any is read back, so an in-place call overwrites nothing it still sends.
        area.write(area.block(rank) + halfOffset, input, 0, block * size);
        area.publish(chunk);
        if (input != recv) {
            MemorySegment.copy(input, rank * block, recv, rank * block, block);
        }
        for (int k = 1; k < size; k++) {
            int q = (rank + k) % size;
            area.awaitPublished(q, chunk, "alltoall");
            area.read(area.block(q) + halfOffset + rank * block, recv, q * block, block);
        }
        area.consume(chunk);
    }

    /**
     * The direct alltoall: every rank exposes its send buffer (a staged copy if it is not a device
     * buffer, or if in place: the blocks it sends are the ones it receives into), then copies its
     * block of every member's buffer straight into its receive buffer. One copy a byte when the
     * send buffers are device buffers, and no member waits for another to be scheduled to send.
     * False (after every member has seen it, before anything is written) when some member had no
     * room to stage.
     */
    boolean direct(MemorySegment send, long block, MemorySegment recv) {
        int rank = area.rank;
        int size = area.size;
        long n = block * size;
        boolean inPlace = send == Communicator.IN_PLACE;
        MemorySegment input = inPlace ? recv : send;
        long chunk = area.nextChunk();
        area.awaitAllConsumed(chunk - 1, "alltoall");
        CollectiveArea.Staged staged = null;
        try {
            long offset = inPlace ? -1 : area.site.deviceOffset(input, n);
            if (offset < 0 && (staged = area.stage(0, n)) != null) {
                device.write(staged.offset(), input, 0, n);
                offset = staged.offset();
            }
            area.expose(chunk, offset, -1, n);
            area.publish(chunk);
            long[] sources = new long[size];
            boolean allReady = true;
            try {
                area.awaitAllPublished(chunk, "alltoall");
                for (int q = 0; q < size; q++) {
                    sources[q] = area.exposedSource(q, n, "alltoall");
                    allReady &= sources[q] >= 0;
                }
                if (allReady) {
                    for (int k = 0; k < size; k++) {
                        int q = (rank + k) % size;
                        device.read(sources[q] + rank * block, recv, q * block, block);
                    }
                }
            } finally {
                // also when the sizes differ (every member then fails): nobody waits for this rank for ever
                area.consume(chunk);
            }
            area.awaitAllConsumed(chunk, "alltoall"); // nobody reads this rank's buffer any more
            return allReady;
        } finally {
            area.unstage(staged);
        }
    }

    /**
     * A grid's neighbourhood exchange written once: this rank writes each block it sends to its
     * data area at the block's step, publishes, and reads from each source the block at the step it
     * receives (a grid's steps name each sender's blocks). Every member takes the chunk, as for any
     * collective of the communicator; only the sources are waited on before reading.
     */
    void neighbors(MemorySegment[] sendBlocks, int[] sendSteps, MemorySegment[] recvBlocks, int[] sources, int[] receiveSteps,
                   long block) {
        int steps = Math.max(sendSteps.length, receiveSteps.length);
        for (int step : sendSteps) {
            steps = Math.max(steps, step + 1);
        }
        if (steps * block > area.chunkBytes) {
            throw new LockstepException(ErrorClass.INTERN, "neighbourhood exchange of " + steps + " blocks of " + block
                    + " bytes does not fit a data half of " + area.chunkBytes + " bytes");
        }
        long chunk = area.nextChunk();
        long halfOffset = area.halfOffset(chunk, block * steps);
        area.awaitAllConsumed(chunk - 2, "neighborAlltoall");
        long mine = area.block(area.rank) + halfOffset;
        for (int j = 0; j < sendBlocks.length; j++) {
            if (sendBlocks[j] != null) {
                area.write(mine + sendSteps[j] * block, sendBlocks[j], 0, block);
            }
        }
        area.publish(chunk);
        try {
            for (int i = 0; i < recvBlocks.length; i++) {
                if (recvBlocks[i] != null) {
                    area.awaitPublished(sources[i], chunk, "neighborAlltoall");
                    area.read(area.block(sources[i]) + halfOffset + receiveSteps[i] * block, recvBlocks[i], 0, block);
                }
            }
        } finally {
            area.consume(chunk); // also when a source has gone: the others need not wait for this rank
        }
    }
}
