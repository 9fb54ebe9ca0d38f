package org.lockstep.pcie.mapped;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceException;

/**
 * Opens and maps each kind of device path, deciding its capabilities and how it persists. The
 * mapping belongs to a shared arena whose close unmaps it, so that the FFM runtime (not this code)
 * guarantees no thread touches the memory once it is gone.
 */
final class DeviceMapper {
    /** The persistence domain in which CPU caches are flushed on power loss (eADR). */
    static final String CPU_CACHE_DOMAIN = "cpu_cache";

    private static final AtomicLong TEMPORARY_NAMES = new AtomicLong();

    /** How {@link MappedDevice#persist} makes a range durable. */
    enum PersistMethod {
        /** {@code msync(MS_SYNC)} of the page-aligned range: the kernel writes the dirty pages back and waits. */
        MSYNC,
        /** A full fence: orders the writes; durable only where the device says stores in the CPU are. */
        FENCE,
        /**
         * A store-store fence: orders the writes and nothing more. For a file in RAM, where nothing
         * survives power loss and a store that was made survives the death of the process that
         * made it (a killed CPU's store buffer drains), ordering is all persisting can mean.
         */
        ORDER
    }

    /**
     * A mapped device path.
     *
     * @param kind               what was mapped
     * @param arena              the shared arena whose close unmaps it
     * @param pages              the whole mapping, page-rounded (what {@code msync} is given)
     * @param capacity           the device's size in bytes (the first {@code capacity} bytes of {@code pages})
     * @param capabilities       what it can do
     * @param persistMethod      how {@code persist} works
     * @param fenceBeforeRelease whether a release store needs a full fence first (device memory, where
     *                           write-combining may reorder stores that ordinary memory keeps in order)
     * @param description        how it was mapped and why it has the capabilities it has
     * @param file               for a regular file: which file was mapped and whether this open created it
     */
    record Mapping(DeviceKind kind, Arena arena, MemorySegment pages, long capacity, Set<DeviceCapability> capabilities,
                   PersistMethod persistMethod, boolean fenceBeforeRelease, String description, Optional<PrivateFile> file) {
    }

    private final DevicePaths paths;

    DeviceMapper(DevicePaths paths) {
        this.paths = paths;
    }

    Mapping map(DevicePaths.Classified target, long capacityWanted, MappedDeviceOptions options) {
        if (options.deleteOnClose() && target.kind() != DeviceKind.REGULAR_FILE) {
            throw DevicePaths.argumentError(target.path(), "is a " + target.kind().description() + ": option "
                    + MappedDeviceOptions.DELETE_ON_CLOSE + "=true applies to regular files only");
        }
        return switch (target.kind()) {
            case REGULAR_FILE -> mapFile(target, capacityWanted, options);
            case DAX_DEVICE -> mapDax(target, capacityWanted, options);
            case PCI_BAR -> mapBar(target, capacityWanted);
        };
    }

    // ---- regular files

    private Mapping mapFile(DevicePaths.Classified target, long capacityWanted, MappedDeviceOptions options) {
        Path path = target.path();
        int fd = -1;
        long size = capacityWanted;
        boolean created = false;
        if (!target.exists()) {
            fd = createAllocated(path, capacityWanted);
            created = fd >= 0;
        }
        PrivateFile file;
        try {
            if (fd < 0) { // it existed, or another process created it first
                fd = openExistingFile(path);
                file = PrivateFile.check(path, fd, false);
                size = existingSize(path, fd, capacityWanted);
                allocateHoles(path, fd, size);
            } else {
                file = PrivateFile.check(path, fd, true);
            }
        } catch (RuntimeException e) {
            Posix.closeQuietly(fd);
            throw e;
        }
        Arena arena = Arena.ofShared();
        MemorySegment pages;
        try {
            pages = mapShared(path, fd, size, Posix.MAP_SHARED, arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        } finally {
            Posix.closeQuietly(fd); // the mapping keeps the file open
        }
        String fileSystem = DevicePaths.fileSystemType(path);
        boolean volatileMemory = DevicePaths.VOLATILE_FILE_SYSTEMS.contains(fileSystem);
        Set<DeviceCapability> capabilities = capabilities(options.atomics(), !volatileMemory);
        String description = DeviceKind.REGULAR_FILE.description() + " on " + fileSystem + (volatileMemory
                ? " (in RAM: persist only orders writes, nothing survives power loss)"
                : " (persist: msync of the page-aligned range)");
        return new Mapping(DeviceKind.REGULAR_FILE, arena, pages, size, capabilities,
                volatileMemory ? PersistMethod.ORDER : PersistMethod.MSYNC, false, description, Optional.of(file));
    }

    /**
     * Opens an existing regular file, never through a symbolic link: a link at the device path
     * could point at any file its maker chose, e.g. another user's, which formatting would destroy.
     */
    private static int openExistingFile(Path path) {
        try {
            return Posix.open(path.toString(), Posix.O_RDWR | Posix.O_CLOEXEC | Posix.O_NOFOLLOW, 0);
        } catch (Posix.Failure e) {
            if (e.errno() == Posix.ELOOP) {
                throw DevicePaths.error(path, "is a symbolic link" + linkTarget(path) + "; a device file is never opened"
                        + " through a link, which could point at a file of someone else's: name the file itself, or remove the link");
            }
            throw DevicePaths.error(path, "cannot be opened for reading and writing: " + e.getMessage());
        }
    }

    private static String linkTarget(Path path) {
        try {
            return " (to " + Files.readSymbolicLink(path) + ")";
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    /**
     * Creates the file fully allocated under a temporary name and links it into place, so that no
     * process ever sees it short or sparse. Returns its descriptor, or -1 when another process
     * created the path first (the caller then opens theirs).
     */
    private static int createAllocated(Path path, long capacity) {
        Path directory = path.getParent();
        long available = usableSpace(path, directory);
        if (capacity > available) { // refuse before allocating: on tmpfs a failing fallocate first fills the file system
            throw noRoom(path, capacity, available);
        }
        Path temporary = directory.resolve("." + path.getFileName() + ".creating." + ProcessHandle.current().pid()
                + "." + TEMPORARY_NAMES.incrementAndGet());
        int fd;
        try {
            fd = Posix.open(temporary.toString(), Posix.O_RDWR | Posix.O_CREAT | Posix.O_EXCL | Posix.O_CLOEXEC,
                    Posix.MODE_OWNER_READ_WRITE);
        } catch (Posix.Failure e) {
            throw DevicePaths.error(path, "cannot be created (in " + directory + "): " + e.getMessage());
        }
        try {
            try {
                Posix.fchmod(fd, Posix.MODE_OWNER_READ_WRITE); // whatever the umask
            } catch (Posix.Failure e) {
                throw DevicePaths.error(path, "cannot be created with mode 0600: " + e.getMessage());
            }
            try {
                Posix.posixFallocate(fd, 0, capacity);
            } catch (Posix.Failure e) {
                throw allocationFailed(path, capacity, e);
            }
            try {
                Posix.link(temporary.toString(), path.toString());
            } catch (Posix.Failure e) {
                if (e.errno() == Posix.EEXIST) {
                    Posix.closeQuietly(fd);
                    return -1;
                }
                throw DevicePaths.error(path, "cannot be created: " + e.getMessage());
            }
            return fd;
        } catch (RuntimeException e) {
            Posix.closeQuietly(fd);
            throw e;
        } finally {
            unlinkQuietly(temporary);
        }
    }

    /**
     * The size an existing file is mapped at: its own. An empty file (as a launcher creates to
     * claim the path before its ranks start) holds nothing, so it is allocated to the capacity wanted;
     * ranks that do so at once all ask for the same size.
     */
    private static long existingSize(Path path, int fd, long capacityWanted) {
        long size;
        try {
            size = Files.size(path);
        } catch (IOException e) {
            throw DevicePaths.error(path, "cannot read its size: " + e);
        }
        if (size == 0) {
            long available = usableSpace(path, path.getParent());
            if (capacityWanted > available) {
                throw noRoom(path, capacityWanted, available);
            }
            try {
                Posix.posixFallocate(fd, 0, capacityWanted);
            } catch (Posix.Failure e) {
                throw allocationFailed(path, capacityWanted, e);
            }
            return capacityWanted;
        }
        if (size < capacityWanted) {
            throw DevicePaths.error(path, "has " + size + " bytes, fewer than the " + capacityWanted
                    + " asked for; an existing file is mapped at its own size and never grown under other processes"
                    + " (ask for at most " + size + " bytes, or remove the file)");
        }
        return size;
    }

    /** Allocates any holes of an existing file, so that a store into one cannot hit a full file system as SIGBUS. */
    private static void allocateHoles(Path path, int fd, long size) {
        try {
            Posix.fallocate(fd, 0, size);
        } catch (Posix.Failure e) {
            if (e.errno() != Posix.EOPNOTSUPP) { // a file system that cannot allocate ahead keeps its holes
                throw allocationFailed(path, size, e);
            }
        }
    }

    private static DeviceException allocationFailed(Path path, long size, Posix.Failure e) {
        if (e.errno() == Posix.ENOSPC || e.errno() == Posix.EDQUOT) {
            return noRoom(path, size, usableSpace(path, path.getParent()));
        }
        if (e.errno() == Posix.EFBIG) {
            return DevicePaths.error(path, "cannot hold " + size + " bytes: the file system's largest file is smaller ("
                    + e.getMessage() + ")");
        }
        return DevicePaths.error(path, "cannot allocate " + size + " bytes: " + e.getMessage());
    }

    private static DeviceException noRoom(Path path, long size, long available) {
        return DevicePaths.error(path, "needs " + size + " bytes but its file system (" + DevicePaths.fileSystemType(
                path.getParent()) + " at " + path.getParent() + ") has only " + available + " bytes available"
                + " (free space, or ask for a smaller device, or choose another directory; a container's /dev/shm is often small:"
                + " docker run --shm-size)");
    }

    private static long usableSpace(Path path, Path directory) {
        try {
            return Files.getFileStore(directory).getUsableSpace();
        } catch (IOException e) {
            throw DevicePaths.error(path, "cannot read the free space of " + directory + ": " + e);
        }
    }

    // ---- device-DAX

    private Mapping mapDax(DevicePaths.Classified target, long capacityWanted, MappedDeviceOptions options) {
        Path path = target.path();
        Path node = target.sysfsNode().orElseThrow();
        long size = readSysfsNumber(path, node.resolve("size"));
        if (size < capacityWanted) {
            throw DevicePaths.error(path, "has " + size + " bytes, fewer than the " + capacityWanted + " asked for");
        }
        int fd = openExisting(path, Posix.O_RDWR | Posix.O_CLOEXEC);
        Arena arena = Arena.ofShared();
        MemorySegment pages;
        boolean synchronous;
        try {
            try {
                pages = mapShared(path, fd, size, Posix.MAP_SHARED_VALIDATE | Posix.MAP_SYNC, arena);
                synchronous = true;
            } catch (DeviceException noSync) {
                // kernels before 4.15 or drivers without MAP_SYNC reject the flags: map without
                if (!(noSync.getCause() instanceof Posix.Failure f)
                        || (f.errno() != Posix.EOPNOTSUPP && f.errno() != Posix.EINVAL)) {
                    throw noSync;
                }
                pages = mapShared(path, fd, size, Posix.MAP_SHARED, arena);
                synchronous = false;
            }
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        } finally {
            Posix.closeQuietly(fd);
        }
        Optional<String> domain = paths.persistenceDomain(node);
        boolean persistent = synchronous && domain.filter(CPU_CACHE_DOMAIN::equals).isPresent();
        String why;
        if (!synchronous) {
            why = "mapped without MAP_SYNC (the kernel refused it): not persistent";
        } else if (domain.isEmpty()) {
            why = "MAP_SYNC; no persistence domain (volatile memory): not persistent";
        } else if (persistent) {
            why = "MAP_SYNC, persistence domain cpu_cache: persist is a full fence (caches are flushed on power loss)";
        } else {
            why = "MAP_SYNC, persistence domain " + domain.get() + ": not persistent, since durability needs a"
                    + " cache-line write-back (clwb) that Java cannot issue; persist only orders writes";
        }
        return new Mapping(DeviceKind.DAX_DEVICE, arena, pages, size, capabilities(options.atomics(), persistent),
                PersistMethod.FENCE, false, DeviceKind.DAX_DEVICE.description() + " (" + why + ")", Optional.empty());
    }

    private static long readSysfsNumber(Path path, Path attribute) {
        try {
            String text = Files.readString(attribute).trim();
            return text.startsWith("0x") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            throw DevicePaths.error(path, "has no readable size in " + attribute + ": " + e);
        }
    }

    // ---- PCI BAR

    private static Mapping mapBar(DevicePaths.Classified target, long capacityWanted) {
        Path path = target.path();
        long size;
        try {
            size = Files.size(path);
        } catch (IOException e) {
            throw DevicePaths.error(path, "cannot read the BAR's size: " + e);
        }
        if (size == 0) {
            throw DevicePaths.error(path, "is a BAR of size 0 (not implemented by the device)");
        }
        if (size < capacityWanted) {
            throw DevicePaths.error(path, "is a BAR of " + size + " bytes, fewer than the " + capacityWanted + " asked for");
        }
        int fd = openExisting(path, Posix.O_RDWR | Posix.O_SYNC | Posix.O_CLOEXEC);
        Arena arena = Arena.ofShared();
        MemorySegment pages;
        try {
            pages = mapShared(path, fd, size, Posix.MAP_SHARED, arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        } finally {
            Posix.closeQuietly(fd);
        }
        return new Mapping(DeviceKind.PCI_BAR, arena, pages, size, capabilities(false, false), PersistMethod.FENCE, true,
                DeviceKind.PCI_BAR.description() + " (device memory: no CPU atomics, persist only orders writes,"
                        + " release stores are fenced)", Optional.empty());
    }

    // ---- shared steps

    private static int openExisting(Path path, int flags) {
        try {
            return Posix.open(path.toString(), flags, 0);
        } catch (Posix.Failure e) {
            throw DevicePaths.error(path, "cannot be opened for reading and writing: " + e.getMessage());
        }
    }

    /** Maps {@code size} bytes (rounded up to whole pages) into {@code arena}, whose close unmaps them. */
    private static MemorySegment mapShared(Path path, int fd, long size, int flags, Arena arena) {
        long length = roundUpToPage(size);
        long address;
        try {
            address = Posix.mmap(length, flags, fd);
        } catch (Posix.Failure e) {
            DeviceException error = DevicePaths.error(path, "cannot be mapped (" + length + " bytes): " + e.getMessage());
            error.initCause(e);
            throw error;
        }
        return MemorySegment.ofAddress(address).reinterpret(length, arena, unmapped -> {
            try {
                Posix.munmap(address, length);
            } catch (Posix.Failure ignored) {
                // only a wrong address or length fails, and both come from the mmap above
            }
        });
    }

    static long roundUpToPage(long size) {
        long mask = Posix.PAGE_SIZE - 1;
        if (size > Long.MAX_VALUE - mask) {
            throw new IllegalArgumentException("size " + size + " cannot be rounded up to a page");
        }
        return (size + mask) & ~mask;
    }

    private static Set<DeviceCapability> capabilities(boolean atomics, boolean persistent) {
        EnumSet<DeviceCapability> declared = EnumSet.of(DeviceCapability.CROSS_PROCESS);
        if (atomics) {
            declared.add(DeviceCapability.ATOMIC_CAS);
        }
        if (persistent) {
            declared.add(DeviceCapability.PERSISTENT);
        }
        return Collections.unmodifiableSet(declared);
    }

    private static void unlinkQuietly(Path path) {
        try {
            Posix.unlink(path.toString());
        } catch (Posix.Failure ignored) {
            // already gone, or the directory forbids it: nothing to clean up either way
        }
    }
}
