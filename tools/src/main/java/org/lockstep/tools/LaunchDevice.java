package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.function.Predicate;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The launcher's claim on a job's device path. Before any rank starts, the launcher creates the
 * file itself, empty and private (mode 0600; the ranks' device provider allocates it), so that it
 * knows the file is its own; a path that already exists belongs to someone else (a kept device,
 * another job, the user) and is never removed. Removal is compare-and-delete: the file is deleted
 * only if the path still names the very file the launcher created (same device and inode) and
 * that file holds this job's device (or nothing yet), so a file another job put there, or whose
 * ranks took it over first, is never touched.
 *
 * @param path    the device path the ranks are given
 * @param fileKey the created file's identity (device and inode); empty when the path existed before
 */
record LaunchDevice(Path path, Optional<Object> fileKey) {
    /** Creates {@code path} if it does not exist; a path that exists is left as it is and marked as not ours. */
    static LaunchDevice claim(Path path) {
        try {
            Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException exists) {
            return new LaunchDevice(path, Optional.empty());
        } catch (NoSuchFileException e) {
            throw new LockstepException(ErrorClass.ARG, "device " + path + " cannot be created: directory " + path.getParent()
                    + " does not exist");
        } catch (IOException | UnsupportedOperationException e) {
            throw new LockstepException(ErrorClass.DEVICE, "device " + path + " cannot be created: " + e.getMessage(), e);
        }
        return new LaunchDevice(path, Optional.ofNullable(identity(path)));
    }

    /** Whether this launcher created the device file. */
    boolean created() {
        return fileKey.isPresent();
    }

    /**
     * Removes the device file if this launcher created it, the path still names that file, and
     * the file is still empty or {@code holdsOurJob} says it holds this job's device: a file the
     * ranks of another job formatted (they may have found it first) stays.
     *
     * @return whether it was removed
     */
    boolean removeIfOurs(Predicate<Path> holdsOurJob) throws IOException {
        if (fileKey.isEmpty()) {
            return false;
        }
        Object now = identity(path);
        if (now == null || !now.equals(fileKey.get())) {
            return false;
        }
        try {
            if (Files.size(path) != 0 && !holdsOurJob.test(path)) {
                return false;
            }
            Files.delete(path);
            return true;
        } catch (NoSuchFileException gone) {
            return false; // the last rank out (or the launcher's shutdown hook) removed it first
        }
    }

    /** The identity of the file at {@code path} (not following a link), or null if there is none. */
    private static Object identity(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return attributes.fileKey() != null ? attributes.fileKey() : attributes.creationTime();
        } catch (IOException e) {
            return null;
        }
    }
}
