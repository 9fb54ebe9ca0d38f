package mpi;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;

import org.lockstep.api.Communicator;
import org.lockstep.api.LockstepException;

/**
 * The state of one open {@link File} at one rank: its channel, its view, its individual file
 * pointer, and what the ranks that opened it share: a private duplicate of their communicator,
 * for the collective calls, and the shared file pointer ({@link SharedFilePointer}), whose window
 * is also atomic mode's lock. Data moves between the program's buffer and the file's
 * visible bytes with positional channel reads and writes, one per run of the view.
 */
final class OpenFile {
    final Communicator comm;
    final int[] members;
    final String filename;
    final Path path;
    final int amode;
    private final FileChannel channel;
    private final SharedFilePointer shared;
    FileViewMap view = FileViewMap.bytes();
    /** The individual file pointer, in etypes of the view. */
    long position;
    boolean atomic;

    private OpenFile(Communicator comm, int[] members, String filename, Path path, int amode, FileChannel channel, SharedFilePointer shared) {
        this.comm = comm;
        this.members = members;
        this.filename = filename;
        this.path = path;
        this.amode = amode;
        this.channel = channel;
        this.shared = shared;
    }

    /**
     * {@code MPI_File_open}, collective over {@code from}: rank 0 creates the file if asked, then
     * the others open it; if any rank fails, every rank closes what it opened and throws.
     */
    static OpenFile open(String call, Comm from, String filename, int amode) throws MPIException {
        if (from instanceof Intercomm) {
            throw ErrorClasses.argument(ErrorClasses.COMM, call, "a file is opened over an intracommunicator, not " + from.getName());
        }
        checkAmode(call, amode);
        Path path = pathOf(call, filename);
        Communicator comm;
        try {
            comm = from.live(call).dup();
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
        FileChannel channel = null;
        MPIException failure = null;
        int[] outcome = {0};
        try {
            if (comm.rank() == 0) {
                try {
                    channel = channel(call, path, filename, amode, true);
                } catch (MPIException e) {
                    failure = e;
                    outcome[0] = e.getErrorClass();
                }
            }
            comm.bcast(MemorySegment.ofArray(outcome), 1, org.lockstep.api.Datatype.INT, 0);
            int[] local = {0};
            if (outcome[0] == 0 && comm.rank() != 0) {
                try {
                    channel = channel(call, path, filename, amode, false);
                } catch (MPIException e) {
                    failure = e;
                    local[0] = e.getErrorClass();
                }
            }
            int[] worst = new int[1];
            comm.allreduce(MemorySegment.ofArray(local), MemorySegment.ofArray(worst), 1, org.lockstep.api.Datatype.INT,
                    org.lockstep.api.Op.MAX);
            int errorClass = outcome[0] != 0 ? outcome[0] : worst[0];
            if (errorClass != 0) {
                closeQuietly(channel);
                comm.close();
                throw failure != null ? failure : ErrorClasses.argument(errorClass, call, filename + " could not be opened at another rank");
            }
            return new OpenFile(comm, from.members, filename, path, amode, channel, SharedFilePointer.allocate(comm));
        } catch (LockstepException e) {
            closeQuietly(channel);
            throw ErrorClasses.exception(call, e);
        }
    }

    /** The access mode checks of MPI 4.1 §14.2.1. */
    private static void checkAmode(String call, int amode) throws MPIException {
        int rw = Integer.bitCount(amode & (MPI.MODE_RDONLY | MPI.MODE_WRONLY | MPI.MODE_RDWR));
        String wrong = rw != 1 ? "exactly one of MODE_RDONLY, MODE_WRONLY and MODE_RDWR is needed"
                : (amode & MPI.MODE_RDONLY) != 0 && (amode & (MPI.MODE_CREATE | MPI.MODE_EXCL)) != 0
                        ? "MODE_RDONLY cannot go with MODE_CREATE or MODE_EXCL"
                        : (amode & MPI.MODE_RDWR) != 0 && (amode & MPI.MODE_SEQUENTIAL) != 0 ? "MODE_RDWR cannot go with MODE_SEQUENTIAL"
                        : (amode & ~0x1ff) != 0 ? "unknown mode bits " + Integer.toHexString(amode & ~0x1ff) : null;
        if (wrong != null) {
            throw ErrorClasses.argument(ErrorClasses.AMODE, call, "access mode " + amode + ": " + wrong);
        }
    }

    static Path pathOf(String call, String filename) throws MPIException {
        if (filename == null || filename.isEmpty()) {
            throw ErrorClasses.argument(ErrorClasses.BAD_FILE, call, "no file name");
        }
        try {
            return Path.of(filename);
        } catch (InvalidPathException e) {
            throw ErrorClasses.argument(ErrorClasses.BAD_FILE, call, "'" + filename + "' is not a file name: " + e.getReason());
        }
    }

    private static FileChannel channel(String call, Path path, String filename, int amode, boolean creator) throws MPIException {
        Set<StandardOpenOption> options = EnumSet.noneOf(StandardOpenOption.class);
        if ((amode & (MPI.MODE_RDONLY | MPI.MODE_RDWR)) != 0) {
            options.add(StandardOpenOption.READ);
        }
        if ((amode & (MPI.MODE_WRONLY | MPI.MODE_RDWR)) != 0) {
            options.add(StandardOpenOption.WRITE);
        }
        if (creator && (amode & MPI.MODE_EXCL) != 0) {
            options.add(StandardOpenOption.CREATE_NEW);
        } else if (creator && (amode & MPI.MODE_CREATE) != 0) {
            options.add(StandardOpenOption.CREATE);
        }
        try {
            return FileChannel.open(path, options);
        } catch (IOException | SecurityException e) {
            throw ioError(call, filename, e);
        }
    }

    /** An I/O failure as its MPI error class (MPI 4.1 §14.7). */
    static MPIException ioError(String call, String filename, Exception e) {
        int errorClass = switch (e) {
            case NoSuchFileException x -> ErrorClasses.NO_SUCH_FILE;
            case FileAlreadyExistsException x -> ErrorClasses.FILE_EXISTS;
            case AccessDeniedException x -> ErrorClasses.ACCESS;
            case SecurityException x -> ErrorClasses.ACCESS;
            default -> ErrorClasses.IO;
        };
        String what = switch (errorClass) {
            case ErrorClasses.NO_SUCH_FILE -> "no such file";
            case ErrorClasses.FILE_EXISTS -> "the file exists (MODE_EXCL)";
            case ErrorClasses.ACCESS -> "access denied";
            default -> e.toString();
        };
        return ErrorClasses.argument(errorClass, call, filename + ": " + what);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // the open failed already; that is what the caller reports
            }
        }
    }

    /** {@code MPI_File_close}: every rank has finished with the file before rank 0 deletes it (MODE_DELETE_ON_CLOSE). */
    void close(String call) throws MPIException {
        try {
            channel.close();
        } catch (IOException e) {
            throw ioError(call, filename, e);
        } finally {
            try {
                comm.barrier();
                shared.free();
                if ((amode & MPI.MODE_DELETE_ON_CLOSE) != 0 && comm.rank() == 0) {
                    java.nio.file.Files.deleteIfExists(path);
                }
                comm.close();
            } catch (LockstepException e) {
                throw ErrorClasses.exception(call, e);
            } catch (IOException e) {
                throw ioError(call, filename, e);
            }
        }
    }

    long size(String call) throws MPIException {
        try {
            return channel.size();
        } catch (IOException e) {
            throw ioError(call, filename, e);
        }
    }

    /** Rank 0 makes the file {@code size} bytes long, or at least that ({@code grow}); collective. */
    void resize(String call, long size, boolean growOnly) throws MPIException {
        if (size < 0) {
            throw ErrorClasses.argument(ErrorClasses.ARG, call, "negative size " + size);
        }
        if ((amode & MPI.MODE_RDONLY) != 0) {
            throw ErrorClasses.argument(ErrorClasses.READ_ONLY, call, filename + " is open MODE_RDONLY");
        }
        collective(call, () -> {
            if (comm.rank() == 0) {
                try {
                    long now = channel.size();
                    if (size < now && !growOnly) {
                        channel.truncate(size);
                    } else if (size > now) {
                        channel.write(ByteBuffer.allocate(1), size - 1);
                    }
                } catch (IOException e) {
                    throw ioError(call, filename, e);
                }
            }
            return null;
        });
    }

    /** {@code MPI_File_sync}: this rank's writes reach the storage device, then every rank has done so. */
    void sync(String call) throws MPIException {
        collective(call, () -> {
            try {
                channel.force(true);
            } catch (IOException e) {
                throw ioError(call, filename, e);
            }
            return null;
        });
    }

    @FunctionalInterface
    interface Body<T> {
        T run() throws MPIException;
    }

    /** Runs {@code body} as this rank's part of a collective call: every rank reaches the barrier, a failing one too. */
    <T> T collective(String call, Body<T> body) throws MPIException {
        T result;
        try {
            result = body.run();
        } catch (MPIException e) {
            barrier(call);
            throw e;
        }
        barrier(call);
        return result;
    }

    void barrier(String call) throws MPIException {
        try {
            comm.barrier();
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    /** A non-blocking collective's synchronisation: completes once every rank has started the call. */
    org.lockstep.api.Request ibarrier(String call) throws MPIException {
        try {
            return comm.ibarrier();
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
    }

    // ================================================================ data

    /**
     * Reads or writes {@code count} elements of {@code type} at visible byte {@code streamStart}
     * of the view; the status counts the bytes moved (a read stops at the end of the file).
     */
    long transfer(String call, boolean write, long streamStart, Object buf, int count, Datatype type) throws MPIException {
        if (write && (amode & MPI.MODE_RDONLY) != 0) {
            throw ErrorClasses.argument(ErrorClasses.READ_ONLY, call, filename + " is open MODE_RDONLY");
        }
        if (!write && (amode & MPI.MODE_WRONLY) != 0) {
            throw ErrorClasses.argument(ErrorClasses.ACCESS, call, filename + " is open MODE_WRONLY");
        }
        long n = type.wireCount(call, count);
        long bytes = type.wire.byteLength(n);
        if (bytes % view.etypeBytes != 0) {
            throw ErrorClasses.argument(ErrorClasses.TYPE, call, count + " elements of " + type + " (" + bytes
                    + " bytes) are not a whole number of the view's etypes (" + view.etypeBytes + " bytes)");
        }
        if (bytes == 0) {
            return 0;
        }
        MemorySegment user = Buffers.segment(buf, n, call);
        long reach;
        try {
            reach = type.wire.span(n);
        } catch (LockstepException e) {
            throw ErrorClasses.exception(call, e);
        }
        if (reach > user.byteSize()) {
            throw ErrorClasses.argument(ErrorClasses.BUFFER, call, "the buffer of " + user.byteSize() + " bytes is too short for "
                    + count + " elements of " + type + " (" + reach + " bytes)");
        }
        if (bytes > Integer.MAX_VALUE - 16) {
            throw ErrorClasses.argument(ErrorClasses.COUNT, call, bytes + " bytes in one access; at most 2 GiB");
        }
        ByteBuffer data = directly(user, type, bytes);
        MemorySegment packed = data != null ? null : MemorySegment.ofArray(new byte[(int) bytes]);
        if (packed != null) {
            data = packed.asByteBuffer();
            if (write) {
                type.wire.packAll(user, n, packed);
            }
        }
        long moved;
        if (atomic) {
            shared.lockExclusive(call);
            try {
                moved = move(call, write, streamStart, data, bytes);
            } finally {
                shared.unlock(call);
            }
        } else {
            moved = move(call, write, streamStart, data, bytes);
        }
        if (!write) {
            if (packed != null) {
                type.wire.unpackPartial(packed, 0, user, n, moved);
            }
            Buffers.copyBack(buf, user);
        }
        return moved;
    }

    /** The buffer's own bytes when a contiguous type lets the channel use them, else null (a copy is packed). */
    private static ByteBuffer directly(MemorySegment user, Datatype type, long bytes) {
        if (!type.wire.isContiguous()) {
            return null;
        }
        try {
            return user.asSlice(0, bytes).asByteBuffer();
        } catch (UnsupportedOperationException notBytes) {
            return null; // a heap array of another type than byte[]
        }
    }

    private long move(String call, boolean write, long streamStart, ByteBuffer data, long bytes) throws MPIException {
        long[] moved = {0};
        try {
            view.forEachRun(streamStart, bytes, (fileOffset, rangeOffset, length) -> {
                ByteBuffer part = data.slice((int) rangeOffset, (int) length);
                while (part.hasRemaining()) {
                    long at = fileOffset + part.position();
                    int n = write ? channel.write(part, at) : channel.read(part, at);
                    if (n < 0) {
                        moved[0] += part.position();
                        return false; // the end of the file
                    }
                }
                moved[0] += length;
                return true;
            });
        } catch (IOException e) {
            throw ioError(call, filename, e);
        }
        return moved[0];
    }

    // ================================================================ the shared file pointer and atomic mode

    boolean hasSharedPointer() {
        return shared.exists();
    }

    long fetchAndAddShared(String call, long etypes) throws MPIException {
        return shared.fetchAndAdd(call, etypes);
    }

    /** Sets the shared file pointer; collective (every rank gives the same value, rank 0 stores it after every rank's last use). */
    void setShared(String call, long etypes) throws MPIException {
        shared.require(call);
        collective(call, () -> {
            barrier(call);
            if (comm.rank() == 0) {
                shared.store(call, etypes);
            }
            return null;
        });
    }

    /** Atomic mode ({@code MPI_File_set_atomicity}): each access holds rank 0's window exclusively. */
    void setAtomic(String call, boolean on) throws MPIException {
        if (on) {
            shared.require(call);
        }
        collective(call, () -> {
            atomic = on;
            return null;
        });
    }
}
