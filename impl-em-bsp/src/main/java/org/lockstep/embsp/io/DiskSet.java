package org.lockstep.embsp.io;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;
import org.lockstep.spi.device.DeviceException;

/**
 * The D disk files of one simulation: created (never over an existing file), sized to the
 * layout, opened with O_DIRECT where asked and possible, optionally memory-mapped, and deleted
 * when closed — or, kept ({@link KeptDisk}), taken over or created as named, written through to
 * their size, locked for the run and left in place.
 */
public final class DiskSet implements AutoCloseable {
    private static final String FILE_PREFIX = "lockstep-embsp-";
    /**
     * Distinguishes the disk sets of one JVM: real processors started at once in one process (the
     * kit's P = 2) could draw the same System.nanoTime() and collide on one file name.
     */
    private static final AtomicLong FILE_NUMBERS = new AtomicLong();
    private static final String FILE_SUFFIX = ".ctx";

    private final List<Path> files;
    private final List<FileChannel> channels;
    private final List<MemorySegment> mappings;
    private final Arena mapArena;
    private final boolean direct;
    private final long deviceBlockSize;
    private final boolean kept;

    private DiskSet(List<Path> files, List<FileChannel> channels, List<MemorySegment> mappings, Arena mapArena,
                    boolean direct, long deviceBlockSize, boolean kept) {
        this.kept = kept;
        this.files = files;
        this.channels = channels;
        this.mappings = mappings;
        this.mapArena = mapArena;
        this.direct = direct;
        this.deviceBlockSize = deviceBlockSize;
    }

    /** How the files are opened. */
    public enum Access { DIRECT, BUFFERED, AUTO_DIRECT, MAPPED }

    /**
     * Creates and opens one file per path (a directory gets a new file inside it) sized by {@code layout}.
     *
     * @param keep the disks are named files kept after the run ({@link KeptDisk}); an existing one is used in place
     * @throws LockstepException {@link ErrorClass#ARG} for a block size that is not a multiple of a disk's
     *         device block, an existing file not kept, or a kept disk that is a directory or in use,
     *         {@link ErrorClass#NO_MEM} for a disk without room for its share of v·μ,
     *         {@link ErrorClass#DEVICE} for files that cannot be created or opened as asked
     */
    public static DiskSet open(List<Path> paths, DiskLayout layout, long blockSize, Access access, boolean keep) {
        List<Path> files = new ArrayList<>();
        List<FileChannel> channels = new ArrayList<>();
        List<MemorySegment> mappings = new ArrayList<>();
        List<Path> created = new ArrayList<>();
        Arena arena = access == Access.MAPPED ? Arena.ofShared() : null;
        boolean direct = access == Access.DIRECT || access == Access.AUTO_DIRECT;
        long deviceBlock = 1;
        try {
            Map<FileStore, Long> demand = new LinkedHashMap<>();
            Set<Path> seen = new HashSet<>();
            for (int d = 0; d < paths.size(); d++) {
                if (keep) {
                    KeptDisk.check(paths.get(d));
                }
                Path file = fileFor(paths.get(d), d);
                if (!seen.add(file.toAbsolutePath().normalize())) {
                    throw new LockstepException(ErrorClass.ARG, "disk " + file + " is given twice");
                }
                Path parent = file.toAbsolutePath().getParent();
                if (parent == null || !Files.isDirectory(parent)) {
                    throw new LockstepException(ErrorClass.ARG, "disk " + file + ": directory " + parent + " does not exist");
                }
                FileStore store = Files.getFileStore(parent);
                long storeBlock = store.getBlockSize();
                if (blockSize % storeBlock != 0) {
                    throw new LockstepException(ErrorClass.ARG, "block size B = " + blockSize + " is not a multiple of the "
                            + storeBlock + "-byte device block of " + parent + " (" + store.name() + ")");
                }
                deviceBlock = Math.max(deviceBlock, storeBlock);
                long present = keep && Files.exists(file) ? Files.size(file) : 0;
                demand.merge(store, Math.max(0, layout.diskBytes(d) - present), Long::sum);
                files.add(file);
            }
            for (Map.Entry<FileStore, Long> need : demand.entrySet()) {
                long usable = need.getKey().getUsableSpace();
                if (usable < need.getValue()) {
                    throw new LockstepException(ErrorClass.NO_MEM, "disk space: " + need.getValue() + " bytes of contexts (v·μ) "
                            + "must go on " + need.getKey().name() + ", which has " + usable + " bytes free");
                }
            }
            for (int d = 0; d < files.size(); d++) {
                Path file = files.get(d);
                long size = layout.diskBytes(d);
                if (!keep) {
                    createNew(file);
                    created.add(file);
                    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                        raf.setLength(size);
                    }
                    file.toFile().deleteOnExit();
                } else if (Files.notExists(file)) {
                    Files.createFile(file);
                }
                FileChannel channel;
                if (access == Access.MAPPED) {
                    channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                } else {
                    channel = openChannel(file, access);
                    if (channel == null) {
                        direct = false;
                        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    }
                }
                channels.add(channel);
                if (keep) {
                    KeptDisk.lock(file, channel);
                    KeptDisk.fill(channel, size, Math.max(blockSize, deviceBlock));
                }
                if (access == Access.MAPPED) {
                    mappings.add(size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena));
                }
            }
            return new DiskSet(files, channels, mappings, arena, direct, deviceBlock, keep);
        } catch (IOException e) {
            cleanUp(created, channels, arena);
            throw new DeviceException("cannot set up the disks " + paths + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            cleanUp(created, channels, arena);
            throw e;
        }
    }

    /** An O_DIRECT channel, or {@code null} when AUTO_DIRECT finds the file system refuses it. */
    private static FileChannel openChannel(Path file, Access access) throws IOException {
        if (access == Access.BUFFERED) {
            return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        OpenOption directOption = DirectOption.get();
        try {
            if (directOption == null) {
                throw new UnsupportedOperationException("this JDK has no com.sun.nio.file.ExtendedOpenOption.DIRECT");
            }
            return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, directOption);
        } catch (IOException | UnsupportedOperationException e) {
            if (access == Access.AUTO_DIRECT) {
                return null;
            }
            throw new DeviceException("cannot open " + file + " with O_DIRECT: " + e.getMessage(), e);
        }
    }

    private static Path fileFor(Path path, int index) {
        if (Files.isDirectory(path)) {
            return path.resolve(FILE_PREFIX + ProcessHandle.current().pid() + "-" + System.nanoTime() + "-" + FILE_NUMBERS.incrementAndGet() + "-" + index + FILE_SUFFIX);
        }
        return path;
    }

    private static void createNew(Path file) throws IOException {
        if (Files.exists(file)) {
            throw new LockstepException(ErrorClass.ARG, "disk " + file + " already exists; give a new file or a directory");
        }
        Files.createFile(file);
    }

    private static void cleanUp(List<Path> created, List<FileChannel> channels, Arena arena) {
        for (FileChannel c : channels) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing after a failure: the original error is what matters
            }
        }
        if (arena != null) {
            arena.close();
        }
        for (Path file : created) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    public int count() {
        return files.size();
    }

    public FileChannel channel(int disk) {
        return channels.get(disk);
    }

    /** The mapping of disk {@code disk} (memory-mapped access only). */
    public MemorySegment mapping(int disk) {
        return mappings.get(disk);
    }

    public boolean mapped() {
        return !mappings.isEmpty();
    }

    /** Whether the channels were opened with O_DIRECT. */
    public boolean direct() {
        return direct;
    }

    /** The largest device block of the disks: memory and positions of O_DIRECT requests align to it. */
    public long deviceBlockSize() {
        return deviceBlockSize;
    }

    public List<Path> files() {
        return List.copyOf(files);
    }

    @Override
    public void close() {
        for (FileChannel c : channels) {
            try {
                c.close();
            } catch (IOException ignored) {
                // the files are deleted next
            }
        }
        if (mapArena != null) {
            mapArena.close();
        }
        if (kept) {
            return;
        }
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // deleteOnExit remains as a fallback
            }
        }
    }

    /** {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, looked up without a static dependency on {@code jdk.unsupported}. */
    private static final class DirectOption {
        private static final OpenOption VALUE = lookUp();

        static OpenOption get() {
            return VALUE;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static OpenOption lookUp() {
            try {
                Class<?> type = ClassLoader.getPlatformClassLoader().loadClass("com.sun.nio.file.ExtendedOpenOption");
                return (OpenOption) Enum.valueOf((Class) type, "DIRECT");
            } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
                return null;
            }
        }
    }
}
