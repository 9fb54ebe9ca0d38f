package org.lockstep.pcie.mapped;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;

import org.lockstep.spi.device.DeviceException;

/**
 * A regular device file this process may trust: owned by its effective user and readable and
 * writable by nobody else (mode 0600), as checked on the open descriptor, so that no rename between
 * the check and the mapping can slip another file in. A file anyone else could read leaks the job
 * key and every message; one anyone else could write lets them forge messages; one someone else
 * owns may be theirs. Remembers which file it was (device and inode), so that removing it later
 * removes that file and never another one put at the same path meanwhile.
 *
 * @param path    the path it was opened by
 * @param fileKey the file system's identity of the file (device and inode)
 * @param created whether this process created the file
 */
record PrivateFile(Path path, Object fileKey, boolean created) {
    /** Permission bits for the group and others. */
    private static final int GROUP_AND_OTHER_BITS = 0_077;

    PrivateFile {
        Objects.requireNonNull(fileKey, "fileKey");
    }

    /** The file open as {@code fd} at {@code path}, after checking its owner and mode; a {@link DeviceException} says why not. */
    static PrivateFile check(Path path, int fd, boolean created) {
        Path open = Path.of("/proc/self/fd", Integer.toString(fd)); // follows to the open file itself
        Map<String, Object> attributes;
        Object fileKey;
        try {
            attributes = Files.readAttributes(open, "unix:uid,mode");
            fileKey = Files.readAttributes(open, BasicFileAttributes.class).fileKey();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            throw DevicePaths.error(path, "cannot read its owner and mode: " + e);
        }
        int owner = (Integer) attributes.get("uid");
        int mode = (Integer) attributes.get("mode") & 0_7777;
        int me = Posix.geteuid();
        if (owner != me) {
            throw DevicePaths.error(path, "belongs to user id " + owner + ", not to this process's user (id " + me + "): a"
                    + " device file made by someone else may be read or changed by them, so it is not used; remove it or"
                    + " choose another path");
        }
        if ((mode & GROUP_AND_OTHER_BITS) != 0) {
            throw DevicePaths.error(path, "has mode 0" + Integer.toOctalString(mode) + ": other users could read the job's"
                    + " key and messages" + ((mode & 0_022) != 0 ? " or write into them" : "") + ", so it is not used;"
                    + " make it private (chmod 600 " + path + ") or remove it");
        }
        return new PrivateFile(path, fileKey == null ? path.toString() : fileKey, created);
    }

    /**
     * Removes the file if {@link #path} still names this same file (compare and delete): a file
     * put there by another job meanwhile stays.
     *
     * @return whether it was removed
     */
    boolean removeIfUnchanged() {
        try {
            Object now = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            if (!fileKey.equals(now)) {
                return false;
            }
            Files.delete(path);
            return true;
        } catch (NoSuchFileException gone) {
            return false;
        } catch (IOException e) {
            throw new DeviceException("mapped device '" + path + "': cannot be removed: " + e, e);
        }
    }
}
