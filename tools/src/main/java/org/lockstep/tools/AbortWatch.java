package org.lockstep.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

import org.lockstep.api.AbortNotice;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;

/**
 * The launcher's side of {@link AbortNotice}: a directory of its own for the job, whose
 * {@code abort} file the ranks are told of ({@link LaunchEnvironment#ABORT_FILE}) and the
 * launcher looks at while the job runs. Removed with what is in it when the job ends.
 */
final class AbortWatch implements AutoCloseable {
    private final Path directory;
    private final Path file;
    private AbortNotice seen;

    private AbortWatch(Path directory) {
        this.directory = directory;
        this.file = directory.resolve("abort");
    }

    static AbortWatch create() {
        try {
            return new AbortWatch(Files.createTempDirectory("lockstep-run-"));
        } catch (IOException e) {
            throw new LockstepException(ErrorClass.OTHER, "cannot make the job's directory for abort notices: " + e.getMessage());
        }
    }

    /** The value of {@link LaunchEnvironment#ABORT_FILE} for the ranks. */
    String file() {
        return file.toString();
    }

    /** The first rank's abort, once one has aborted. */
    Optional<AbortNotice> check() {
        if (seen == null) {
            seen = AbortNotice.read(file).orElse(null);
        }
        return Optional.ofNullable(seen);
    }

    @Override
    public void close() {
        try (Stream<Path> left = Files.list(directory)) {
            for (Path p : left.toList()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // a temporary directory left behind; nothing of the job's result depends on it
        }
    }
}
