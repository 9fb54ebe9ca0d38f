package org.lockstep.conformance.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * Signals between the rank processes of one world of a launched job that no rank makes through
 * the provider ({@link RankContext#signalWithoutProvider}): a raised signal is a file in the
 * world's directory, which the processes share (one host, or a file system all hosts see).
 */
final class SignalFiles {
    /** The file that says a rank failed and the others should stop waiting. */
    private static final String ABORT = "abort";
    /** How often a waiting rank looks for the abort file. */
    private static final long ABORT_CHECK_NANOS = 10_000_000;

    private final Path directory;
    private volatile long lastAbortCheck = System.nanoTime();
    private volatile String abortReason;

    SignalFiles(Path directory) {
        this.directory = directory;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the kit's signal directory " + directory, e);
        }
    }

    void raise(String name) {
        try {
            Files.createFile(file(name));
        } catch (FileAlreadyExistsException raisedBefore) {
            // a raised signal stays raised
        } catch (IOException e) {
            throw new UncheckedIOException("cannot raise signal '" + name + "' in " + directory, e);
        }
    }

    boolean raised(String name) {
        return Files.exists(file(name));
    }

    /** Tells the world's other processes to stop: a rank of this one failed. */
    void abort(String reason) {
        try {
            Files.writeString(directory.resolve(ABORT + ".tmp"), reason, StandardCharsets.UTF_8);
            Files.move(directory.resolve(ABORT + ".tmp"), directory.resolve(ABORT), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tell the other processes to stop in " + directory, e);
        }
    }

    /** Why another process stopped the world, if it did (looked for at most every few milliseconds). */
    String abortReason() {
        long now = System.nanoTime();
        if (abortReason == null && now - lastAbortCheck > ABORT_CHECK_NANOS) {
            lastAbortCheck = now;
            try {
                Path f = directory.resolve(ABORT);
                if (Files.exists(f)) {
                    abortReason = Files.readString(f, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + directory.resolve(ABORT), e);
            }
        }
        return abortReason;
    }

    private Path file(String name) {
        return directory.resolve(HexFormat.of().formatHex(name.getBytes(StandardCharsets.UTF_8)));
    }
}
