package org.lockstep.embsp.io;

import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;

/**
 * How explicit I/O reaches the disks (seed 003 chapter 5): the one interface behind which the
 * synchronous and asynchronous drivers sit. Positions and memory must satisfy the channel's
 * alignment when it was opened with O_DIRECT; callers guarantee that.
 */
public interface IoDriver extends AutoCloseable {
    /** Direction of a request. */
    enum Direction { READ, WRITE }

    /** Starts moving {@code memory.byteSize()} bytes between {@code memory} and the channel at {@code position}. */
    IoHandle submit(Direction direction, FileChannel channel, long position, MemorySegment memory);

    /** Short name: {@code sync} or {@code async}. */
    String name();

    @Override
    void close();
}
