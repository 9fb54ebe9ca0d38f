package org.lockstep.embsp.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import org.lockstep.spi.device.DeviceException;

/** The positional read and write loops both drivers run (a call may move fewer bytes than asked). */
final class Transfers {
    private Transfers() {
    }

    static void run(IoDriver.Direction direction, FileChannel channel, long position, MemorySegment memory) {
        ByteBuffer buffer = memory.asByteBuffer();
        long at = position;
        try {
            while (buffer.hasRemaining()) {
                int moved = direction == IoDriver.Direction.READ ? channel.read(buffer, at) : channel.write(buffer, at);
                if (moved < 0) {
                    // past the end of a (sparse) disk file: the rest reads as zeros, like a hole
                    memory.asSlice(buffer.position()).fill((byte) 0);
                    return;
                }
                at += moved;
            }
        } catch (IOException e) {
            throw new DeviceException((direction == IoDriver.Direction.READ ? "reading " : "writing ") + memory.byteSize()
                    + " bytes at position " + position + " failed: " + e.getMessage(), e);
        }
    }
}
