package org.lockstep.embsp.io;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * A disk file kept from run to run ({@code lockstep.embsp.keepDisks}): taken as it is or created,
 * locked for the run so that a second job cannot use it at the same time, written with zeros up to
 * its share where it is shorter, and left in place at the end. Written blocks are the point: on
 * ext4 an O_DIRECT write into a hole (or a fallocated, unwritten extent) allocates or converts the
 * extent under the file's exclusive lock, so the deliveries into never-written parts of the
 * contexts run one at a time (the 4 GiB sort's Alltoallv: 64 KiB writes at 0.5 GB/s into a sparse
 * file here, 1.2 GB/s over written blocks; 1 MiB writes 0.7 against 2.5 GB/s). STXXL's disk file
 * is written once in the same way. What a kept file holds from an earlier run is what an
 * allocation reads before it writes (MPI_Alloc_mem memory is undefined until written).
 */
final class KeptDisk {
    /** Bytes of zeros per write while filling. */
    private static final long FILL_PIECE = 8L << 20;

    private KeptDisk() {
    }

    /** Refuses what cannot be a kept disk: a directory (the file needs a name that the next run finds again) or a non-regular file. */
    static void check(Path file) {
        if (Files.isDirectory(file)) {
            throw new LockstepException(ErrorClass.ARG, "disk " + file + " is a directory: keepDisks needs each disk named as a file");
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new LockstepException(ErrorClass.ARG, "disk " + file + " exists and is not a regular file");
        }
    }

    /** Locks {@code channel}'s file for this run; refuses one another job holds. */
    static FileLock lock(Path file, FileChannel channel) throws IOException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            throw new LockstepException(ErrorClass.ARG, "disk " + file + " is in use by another job");
        }
        return lock;
    }

    /**
     * Writes zeros over {@code [its size rounded down to alignment, size)} of the file behind {@code
     * channel}, in aligned pieces (O_DIRECT may be on; {@code size} is a multiple of the alignment);
     * returns the bytes written.
     */
    static long fill(FileChannel channel, long size, long alignment) throws IOException {
        long from = channel.size() / alignment * alignment;
        if (from >= size) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment zeros = arena.allocate(FILL_PIECE, alignment);
            for (long at = from; at < size; at += FILL_PIECE) {
                Transfers.run(IoDriver.Direction.WRITE, channel, at, zeros.asSlice(0, Math.min(FILL_PIECE, size - at)));
            }
        }
        channel.force(false);
        return size - from;
    }
}
