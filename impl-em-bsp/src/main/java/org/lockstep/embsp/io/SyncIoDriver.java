package org.lockstep.embsp.io;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/**
 * PEMS1's explicit, blocking I/O: every request runs to completion on the calling thread before
 * {@link #submit} returns. With O_DIRECT channels this is aligned, unbuffered I/O.
 */
public final class SyncIoDriver implements IoDriver {
    @Override
    public IoHandle submit(Direction direction, FileChannel channel, long position, MemorySegment memory) {
        Transfers.run(direction, channel, position, memory);
        return IoHandle.COMPLETED;
    }

    @Override
    public String name() {
        return "sync";
    }

    @Override
    public void close() {
    }
}
