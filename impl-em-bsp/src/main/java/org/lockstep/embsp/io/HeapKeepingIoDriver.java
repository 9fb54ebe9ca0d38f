package org.lockstep.embsp.io;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A deliberately broken driver for the conformance kit's self-test (fault
 * {@code KEEPS_CONTEXTS_IN_MEMORY}): it keeps what it is asked to write in heap memory and serves
 * reads from there, so the disks are never written while the I/O is counted as usual. A provider
 * built like this passes every result check; the kit's rule that a context really leaves RAM
 * must catch it. Never used by a real job.
 */
public final class HeapKeepingIoDriver implements IoDriver {
    /** The unit kept: the smallest O_DIRECT alignment, which every request's position and length keep. */
    private static final int PIECE = 512;

    private final IoDriver real;
    private final Map<FileChannel, Map<Long, byte[]>> kept = new IdentityHashMap<>();

    public HeapKeepingIoDriver(IoDriver real) {
        this.real = real;
    }

    @Override
    public synchronized IoHandle submit(Direction direction, FileChannel channel, long position, MemorySegment memory) {
        Map<Long, byte[]> pieces = kept.computeIfAbsent(channel, c -> new HashMap<>());
        for (long done = 0; done < memory.byteSize(); done += PIECE) {
            long n = Math.min(PIECE, memory.byteSize() - done);
            long key = (position + done) / PIECE;
            if (direction == Direction.WRITE) {
                byte[] piece = new byte[PIECE];
                MemorySegment.copy(memory, done, MemorySegment.ofArray(piece), 0, n);
                pieces.put(key, piece);
            } else {
                byte[] piece = pieces.get(key);
                MemorySegment target = memory.asSlice(done, n);
                if (piece == null) {
                    target.fill((byte) 0);
                } else {
                    MemorySegment.copy(MemorySegment.ofArray(piece), 0, target, 0, n);
                }
            }
        }
        return IoHandle.COMPLETED;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public void close() {
        real.close();
    }
}
