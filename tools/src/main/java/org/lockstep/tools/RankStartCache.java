package org.lockstep.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * An ahead-of-time cache (JDK 25's AOT cache, JEP 483/514/515) for the JVMs of launched ranks: the
 * classes a rank loads and links, with their lambdas, mapped from one file at start instead of
 * read, verified and linked from the module path's jars in every process (a restarted rank pays
 * that before its first message). One file per rank command line in a directory of the user's
 * (by default their cache directory): its name is a digest of the JDK, the command without the
 * program's arguments, and the size and time of every jar on the paths, so that a rebuilt jar or
 * another JDK names another file and a stale one is never read.
 *
 * <p>With no file yet, rank 0's first process records its classes (AOTMode=record, into a file
 * named for this launcher) and, after the job, the launcher makes the cache from that record into
 * a file of its own and moves it into place atomically, so that no JVM maps a half-written cache
 * and two launchers making one at once each write their own. The JVM checks the cache again when
 * it maps it and runs without it when it does not match; the AOT log is off in the ranks, so
 * neither case prints into their output, and the launcher drops the one line recording prints ({@link #recordNotice}).
 */
final class RankStartCache {
    /** How long the launcher waits for the JVM that makes the cache after a job before it gives up on it. */
    private static final Duration CREATE_WAIT = Duration.ofSeconds(60);
    private static final List<String> QUIET = List.of("-Xlog:aot*=off,cds*=off");
    private static final String RECORD_OPTION = "-XX:AOTConfiguration=";
    private static final List<String> PATH_OPTIONS = List.of("-p", "--module-path", "-cp", "-classpath", "--class-path");
    /** Room a record and its cache need (15-25 MB each here); with less, no record is made. */
    private static final long SPACE_NEEDED = 256L << 20;

    private final Path directory;

    private RankStartCache(Path directory) {
        this.directory = directory;
    }

    /** The user's cache directory for rank start-up caches: {@code $XDG_CACHE_HOME/lockstep/aot} or {@code ~/.cache/lockstep/aot}. */
    static Path defaultDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("lockstep").resolve("aot");
    }

    /** The cache kept in {@code directory}, created private (mode 0700) if missing; a path that is not a directory is refused. */
    static RankStartCache in(Path directory) {
        Path dir = directory.toAbsolutePath();
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new LockstepException(ErrorClass.ARG, "AOT cache directory " + dir + " cannot be created: " + e.getMessage(), e);
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !Files.isWritable(dir)) {
            throw new LockstepException(ErrorClass.ARG, "AOT cache directory " + dir + " is not a directory this user can write");
        }
        return new RankStartCache(dir);
    }

    /**
     * The cache's part in one job whose ranks run {@code command} (this JDK's java, JVM options,
     * paths, main; {@code arguments} its last elements).
     */
    Optional<Job> forJob(List<String> command, int arguments) {
        List<String> jvm = command.subList(0, command.size() - arguments);
        if (!cacheable(jvm)) {
            return Optional.empty();
        }
        String name = digest(jvm);
        Path cache = directory.resolve(name + ".aot");
        if (Files.isRegularFile(cache, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of(new Job(List.copyOf(jvm), cache, Optional.empty()));
        }
        if (!roomForRecord()) {
            return Optional.empty();
        }
        Path record = directory.resolve(name + "." + ProcessHandle.current().pid() + ".aotconf");
        return Optional.of(new Job(List.copyOf(jvm), cache, Optional.of(record)));
    }

    /**
     * Whether the JVM can record and use a cache for this command: every path entry a jar (a class
     * directory on a path makes the record fail the JVM's exit), and no agent or archive of the job's own.
     */
    private static boolean cacheable(List<String> jvm) {
        for (int i = 1; i < jvm.size(); i++) {
            String part = jvm.get(i);
            if (part.startsWith("-javaagent") || part.startsWith("-agent") || part.startsWith("-XX:AOT")
                    || part.startsWith("-XX:SharedArchiveFile") || part.startsWith("-Xshare:off")) {
                return false;
            }
            if (PATH_OPTIONS.contains(jvm.get(i - 1))) {
                for (String entry : part.split(java.io.File.pathSeparator)) {
                    if (!entry.endsWith(".jar") || !Files.isRegularFile(Path.of(entry))) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private boolean roomForRecord() {
        try {
            return Files.getFileStore(directory).getUsableSpace() >= SPACE_NEEDED;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * One job's use of the cache.
     *
     * @param record where rank 0's first process records its classes, when there is no cache yet
     */
    record Job(List<String> jvmCommand, Path cache, Optional<Path> record) {
        /** The JVM options to put before the job's own for {@code rank}'s {@code incarnation}. */
        List<String> options(int rank, int incarnation) {
            List<String> options = new ArrayList<>(QUIET);
            if (record.isEmpty()) {
                options.add("-XX:AOTCache=" + cache);
            } else if (rank == 0 && incarnation == ProcessLauncher.FIRST_INCARNATION) {
                options.add("-XX:AOTMode=record");
                options.add(RECORD_OPTION + record.get());
            }
            return options;
        }

        /**
         * After the job: makes the cache from rank 0's record if it ran to its end ({@code recorded}),
         * in a file of this launcher's, moved into place at once; removes the record either way.
         * A cache that cannot be made is left unmade (the next job records again), never an error of the job.
         */
        void complete(boolean recorded) {
            if (record.isEmpty()) {
                return;
            }
            Path made = cache.resolveSibling(record.get().getFileName() + ".aot");
            try {
                if (recorded && Files.isRegularFile(record.get(), LinkOption.NOFOLLOW_LINKS) && create(made)) {
                    Files.move(made, cache, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                // no cache this time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                deleteQuietly(record.get());
                deleteQuietly(made);
            }
        }

        /** Runs the JVM that assembles the cache from the record (the ranks' own command, in create mode). */
        private boolean create(Path made) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            command.add(jvmCommand.getFirst());
            command.addAll(QUIET);
            command.addAll(List.of("-XX:AOTMode=create", RECORD_OPTION + record.get(), "-XX:AOTCache=" + made));
            command.addAll(jvmCommand.subList(1, jvmCommand.size()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(CREATE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                return false;
            }
            return p.exitValue() == 0 && Files.isRegularFile(made, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * The line a JVM recording with {@code command} prints at its exit (on its standard output, whatever the
     * log options), which the launcher drops from the rank's output; none for a JVM that does not record.
     */
    static Optional<String> recordNotice(List<String> command) {
        if (!command.contains("-XX:AOTMode=record")) {
            return Optional.empty();
        }
        return command.stream().filter(a -> a.startsWith(RECORD_OPTION)).findFirst()
                .map(a -> "AOTConfiguration recorded: " + a.substring(RECORD_OPTION.length()));
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover in the user's cache directory; the next job's names differ
        }
    }

    /** A digest of the JDK, the JVM's command line and the size and time of every file on its module and class paths. */
    private static String digest(List<String> jvmCommand) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JDK", e);
        }
        update(sha, System.getProperty("java.home") + "\n" + System.getProperty("java.vm.version"));
        for (int i = 0; i < jvmCommand.size(); i++) {
            String part = jvmCommand.get(i);
            update(sha, part);
            if (i > 0 && PATH_OPTIONS.contains(jvmCommand.get(i - 1))) {
                for (String entry : part.split(java.io.File.pathSeparator)) {
                    update(sha, stamp(Path.of(entry)));
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 12);
    }

    private static String stamp(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.size() + "@" + a.lastModifiedTime().toMillis();
        } catch (IOException e) {
            return "missing";
        }
    }

    private static void update(MessageDigest sha, String s) {
        sha.update(s.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
    }
}
