package org.lockstep.pcie.mapped;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.lockstep.api.ErrorClass;
import org.lockstep.spi.device.DeviceException;

/**
 * Decides what a device path is, from its file type and, for devices, from sysfs. The sysfs root
 * is a parameter so that tests can stand a small tree in for {@code /sys}.
 */
final class DevicePaths {
    /** Linux {@code st_mode} file-type bits. */
    private static final int S_IFMT = 0_170000;
    private static final int S_IFREG = 0_100000;
    private static final int S_IFDIR = 0_040000;
    private static final int S_IFCHR = 0_020000;
    private static final int S_IFBLK = 0_060000;

    /** The subsystem a device-DAX character device belongs to in sysfs. */
    private static final String DAX_SUBSYSTEM = "dax";
    /** The sysfs attribute of an nd region that says where writes become durable. */
    private static final String PERSISTENCE_DOMAIN = "persistence_domain";

    /** File systems whose files live in RAM: {@code msync} makes nothing survive power loss. */
    static final Set<String> VOLATILE_FILE_SYSTEMS = Set.of("tmpfs", "ramfs", "hugetlbfs", "devtmpfs");
    /** File systems whose files are views of the kernel, never device memory (except PCI resource files). */
    private static final Set<String> PSEUDO_FILE_SYSTEMS = Set.of("proc", "sysfs", "debugfs", "tracefs", "securityfs",
            "cgroup", "cgroup2", "configfs", "efivarfs", "pstore", "bpf");

    /**
     * The real path of a BAR resource file below the sysfs root: {@code devices/pci<domain>:<bus>/
     * [bridges/]<domain>:<bus>:<slot>.<function>/resource<N>} (or {@code resource<N>_wc}, the
     * write-combining view of a prefetchable BAR).
     */
    private static final Pattern BAR_RELATIVE_PATH = Pattern.compile(
            "devices/pci[0-9a-f]{4,8}:[0-9a-f]{2}(/[^/]+)*/[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]/resource[0-9]+(_wc)?");

    /**
     * A classified path.
     *
     * @param kind      what it is
     * @param path      the path as given (absolute)
     * @param exists    false for a regular file still to be created
     * @param sysfsNode for a DAX device, its directory in sysfs (with {@code size} and {@code align})
     */
    record Classified(DeviceKind kind, Path path, boolean exists, Optional<Path> sysfsNode) {
    }

    private final Path sysfs;

    DevicePaths(Path sysfs) {
        this.sysfs = sysfs;
    }

    /** What {@code path} is; a path that is none of the kinds, or missing when it may not be created, is a {@link DeviceException}. */
    Classified classify(Path path, boolean create) {
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(path, "unix:mode,rdev");
        } catch (NoSuchFileException e) {
            return missing(path, create);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            throw error(path, "cannot read its file attributes: " + e);
        }
        int type = (Integer) attributes.get("mode") & S_IFMT;
        switch (type) {
            case S_IFREG -> {
                if (isBarResource(realPath(path))) {
                    return new Classified(DeviceKind.PCI_BAR, path, true, Optional.empty());
                }
                String fileSystem = fileSystemType(path);
                if (PSEUDO_FILE_SYSTEMS.contains(fileSystem)) {
                    throw error(path, "is a file of the " + fileSystem + " pseudo file system, which cannot hold a device"
                            + " (only PCI resource files under " + sysfs.resolve("bus/pci/devices") + " can be mapped from sysfs)");
                }
                return new Classified(DeviceKind.REGULAR_FILE, path, true, Optional.empty());
            }
            case S_IFCHR -> {
                long rdev = (Long) attributes.get("rdev");
                Path node = sysfs.resolve("dev/char/" + major(rdev) + ":" + minor(rdev));
                String subsystem = subsystemOf(node);
                if (!DAX_SUBSYSTEM.equals(subsystem)) {
                    throw error(path, "is character device " + major(rdev) + ":" + minor(rdev) + " of subsystem '"
                            + subsystem + "', not a DAX device (expected /dev/daxX.Y, subsystem dax)");
                }
                return new Classified(DeviceKind.DAX_DEVICE, path, true, Optional.of(node));
            }
            case S_IFDIR -> throw error(path, "is a directory; name a file in it, e.g. " + path.resolve("lockstep.dev"));
            case S_IFBLK -> throw error(path, "is a block device, which is not mapped directly; put a DAX file system"
                    + " on it (mount -o dax) and name a file there, or use its device-DAX form /dev/daxX.Y");
            default -> throw error(path, "is neither a regular file, a DAX character device nor a PCI resource file"
                    + " (file type bits 0" + Integer.toOctalString(type) + ")");
        }
    }

    /** Whether {@code realPath} is a BAR resource file below this sysfs root. */
    boolean isBarResource(Path realPath) {
        Path root = realPath(sysfs);
        if (!realPath.startsWith(root)) {
            return false;
        }
        return BAR_RELATIVE_PATH.matcher(root.relativize(realPath).toString()).matches();
    }

    /**
     * The persistence domain of the nd region above a DAX device's sysfs node: {@code cpu_cache}
     * (CPU caches are flushed on power loss, so a fence makes stores durable), {@code
     * memory_controller} (stores need a cache-line write-back first), or empty when there is none
     * (volatile memory such as CXL RAM or soft-reserved memory).
     */
    Optional<String> persistenceDomain(Path sysfsNode) {
        Path root = realPath(sysfs);
        for (Path dir = realPath(sysfsNode); dir != null && dir.startsWith(root); dir = dir.getParent()) {
            Path attribute = dir.resolve(PERSISTENCE_DOMAIN);
            if (Files.isRegularFile(attribute)) {
                try {
                    String domain = Files.readString(attribute).trim();
                    return domain.isEmpty() ? Optional.empty() : Optional.of(domain);
                } catch (IOException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    /** The type of the file system that holds {@code path}, e.g. {@code tmpfs} or {@code ext4}. */
    static String fileSystemType(Path path) {
        try {
            return Files.getFileStore(path).type();
        } catch (IOException e) {
            throw error(path, "cannot find its file system: " + e);
        }
    }

    private Classified missing(Path path, boolean create) {
        if (!create) {
            throw error(path, "does not exist (and option " + MappedDeviceOptions.CREATE + "=false forbids creating it)");
        }
        Path parent = path.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw error(path, "does not exist and cannot be created: directory " + parent + " does not exist");
        }
        return new Classified(DeviceKind.REGULAR_FILE, path, false, Optional.empty());
    }

    private static String subsystemOf(Path node) {
        Path link = node.resolve("subsystem");
        try {
            return link.toRealPath().getFileName().toString();
        } catch (IOException e) {
            return "unknown: " + link + " is missing";
        }
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw error(path, "cannot resolve its real path: " + e);
        }
    }

    /** Linux {@code dev_t} encoding (glibc {@code gnu_dev_major}/{@code gnu_dev_minor}). */
    static long major(long rdev) {
        return ((rdev & 0xfff00L) >>> 8) | ((rdev & 0xfffff00000000000L) >>> 32);
    }

    static long minor(long rdev) {
        return (rdev & 0xffL) | ((rdev & 0xffffff00000L) >>> 12);
    }

    static DeviceException error(Path path, String problem) {
        return new DeviceException("mapped device '" + path + "' " + problem);
    }

    static DeviceException argumentError(Path path, String problem) {
        return new DeviceException(ErrorClass.ARG, "mapped device '" + path + "' " + problem);
    }
}
