package org.lockstep.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a rank process that aborts the job ({@link Lockstep#abort}) tells its launcher, in the file
 * the launcher named in {@link LaunchEnvironment#ABORT_FILE}: the launcher watches for the file,
 * stops every other rank at once and exits with the notice's code. The file holds three lines,
 * rank, exit code and reason, and appears whole: it is written under a name of its own and then
 * linked to the watched name, so the first rank to abort is the one the launcher reads.
 *
 * @param rank     the rank that aborted
 * @param exitCode the job's exit status ({@code MPI_Abort}'s error code)
 * @param reason   one line saying why
 */
public record AbortNotice(int rank, int exitCode, String reason) {
    public AbortNotice {
        reason = reason == null ? "" : reason.replace('\n', ' ').replace('\r', ' ');
    }

    /** Writes this notice to {@code file} unless another rank's notice is there already (the first abort wins). */
    public void write(Path file) throws IOException {
        Path own = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        Files.writeString(own, rank + "\n" + exitCode + "\n" + reason + "\n", StandardCharsets.UTF_8);
        try {
            Files.createLink(file, own);
        } catch (FileAlreadyExistsException earlier) {
            // another rank aborted first: its code is the job's
        } finally {
            Files.deleteIfExists(own);
        }
    }

    /** The notice in {@code file}; empty while no rank has aborted. */
    public static Optional<AbortNotice> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException none) {
            return Optional.empty();
        } catch (IOException e) {
            throw new LockstepException(ErrorClass.OTHER, "cannot read the abort notice " + file + ": " + e.getMessage());
        }
        try {
            return Optional.of(new AbortNotice(Integer.parseInt(lines.get(0).trim()), Integer.parseInt(lines.get(1).trim()),
                    lines.size() > 2 ? lines.get(2) : ""));
        } catch (RuntimeException e) {
            throw new LockstepException(ErrorClass.OTHER, "the abort notice " + file + " is not rank, code and reason: " + lines);
        }
    }
}
