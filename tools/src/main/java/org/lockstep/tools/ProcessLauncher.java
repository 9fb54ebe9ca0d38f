package org.lockstep.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import org.lockstep.api.AbortNotice;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;

/**
 * Starts the N processes of a job on this host: each a JVM on this JDK, with this JVM's module
 * path, told its rank, the world size, the device path and the job key through the environment
 * ({@link LaunchEnvironment}), and which incarnation of its rank it is ({@link LaunchEnvironment#INCARNATION}).
 * Prefixes every line a rank prints with its rank. When a rank fails and the job allows restarts,
 * starts it again, as the same rank and its next incarnation, while the other ranks keep running
 * (no global rollback: the restarted process recovers from its own checkpoint). When a rank fails
 * and no restart is left, reports it, gives the others a grace period to notice and end, then
 * stops them. Removes the device file it created unless asked to keep it ({@link LaunchDevice}:
 * only that very file, never one another job put at the path). Each rank is told the launcher's
 * process id and ends if the launcher goes; should the launcher die first, the last rank out
 * removes the device file the launcher made.
 */
public final class ProcessLauncher {
    /** Incarnation of a rank's first process ({@link LaunchEnvironment#INCARNATION}); each restart adds one. */
    public static final int FIRST_INCARNATION = 1;
    /** How long the launcher waits for killed ranks to be gone before it removes their device. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    /**
     * What a launch is asked to do.
     *
     * @param maxRestarts how many times, in all, a rank that dies may be restarted (0: a failed rank fails the job)
     */
    public record Job(int ranks, String mainClassOrJar, List<String> arguments, Optional<Path> device,
                      Map<String, String> properties, List<String> jvmOptions, List<String> classPath,
                      boolean keepDevice, Duration grace, boolean bindToCore, int maxRestarts) {
        public Job {
            if (ranks < 1) {
                throw new LockstepException(ErrorClass.ARG, "a job needs at least one rank, got " + ranks);
            }
            if (maxRestarts < 0) {
                throw new LockstepException(ErrorClass.ARG, "the number of restarts must not be negative, got " + maxRestarts);
            }
            arguments = List.copyOf(arguments);
            properties = Map.copyOf(properties);
            jvmOptions = List.copyOf(jvmOptions);
            classPath = List.copyOf(classPath);
        }

        /** A job whose failed ranks are not restarted. */
        public Job(int ranks, String mainClassOrJar, List<String> arguments, Optional<Path> device,
                   Map<String, String> properties, List<String> jvmOptions, List<String> classPath,
                   boolean keepDevice, Duration grace, boolean bindToCore) {
            this(ranks, mainClassOrJar, arguments, device, properties, jvmOptions, classPath, keepDevice, grace, bindToCore, 0);
        }

        /** This job with up to {@code restarts} restarts of failed ranks. */
        public Job withRestarts(int restarts) {
            return new Job(ranks, mainClassOrJar, arguments, device, properties, jvmOptions, classPath, keepDevice, grace,
                    bindToCore, restarts);
        }
    }

    /**
     * One restart: {@code rank} ended with {@code exitCode} and was started again as {@code incarnation}.
     *
     * @param diedAtNanos    {@link System#nanoTime()} when the launcher saw it end
     * @param restartedAtNanos {@link System#nanoTime()} when its next incarnation was started
     */
    public record Restart(int rank, int incarnation, int exitCode, long diedAtNanos, long restartedAtNanos) {
    }

    /** Told about every process the launcher starts, e.g. by a fault injector that kills one. */
    @FunctionalInterface
    public interface StartListener {
        void started(int rank, int incarnation, Process process);
    }

    /**
     * How a launch ended. {@code exitCodes[r]} is the exit code of rank r's last incarnation;
     * {@code restarts} lists the restarts in the order they happened; {@code abort} is the first
     * rank's abort of the job ({@code MPI_Abort}), if one aborted.
     */
    public record Outcome(int[] exitCodes, int firstFailedRank, boolean deviceRemoved, Path device, List<Restart> restarts,
                          Optional<AbortNotice> abort) {
        public Outcome {
            restarts = List.copyOf(restarts);
        }

        /**
         * The abort's code when a rank aborted the job; else 0 when every rank succeeded, else the
         * first failed rank's code (1 if that was 0 because it was stopped).
         */
        public int exitCode() {
            if (abort.isPresent()) {
                return abort.get().exitCode();
            }
            if (firstFailedRank < 0) {
                return 0;
            }
            int code = exitCodes[firstFailedRank];
            return code == 0 ? 1 : code;
        }
    }

    private final PrintStream out;
    private final PrintStream err;
    private volatile boolean cancelled;
    private boolean verbose;
    private Optional<RankStartCache> startCache = Optional.empty();

    public ProcessLauncher(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** With {@code true}, ranks' typed failures are copied with their stack traces ({@link RankOutput}). */
    public ProcessLauncher verbose(boolean showTraces) {
        this.verbose = showTraces;
        return this;
    }

    /**
     * Starts the ranks' JVMs from an ahead-of-time cache kept in {@code directory} ({@link RankStartCache}),
     * made by the first job that finds none there.
     */
    public ProcessLauncher aotCache(Path directory) {
        this.startCache = Optional.of(RankStartCache.in(directory));
        return this;
    }

    /**
     * Stops a running job from another thread: no more restarts, every rank is stopped, and
     * {@link #run} returns (rank 0 counts as the failed one if none had failed).
     */
    public void cancel() {
        cancelled = true;
    }

    /** Runs the job to its end. */
    public Outcome run(Job job) {
        return run(job, (rank, incarnation, process) -> { });
    }

    /** Runs the job to its end, telling {@code listener} about every process it starts. */
    public Outcome run(Job job, StartListener listener) {
        checkBeforeForking(job);
        List<String> command = command(job);
        Optional<RankStartCache.Job> cache = startCache.flatMap(c -> c.forJob(command, job.arguments().size()));
        long jobKey = new SecureRandom().nextLong();
        Path device = job.device().orElse(Path.of("/dev/shm", "lockstep-" + Long.toHexString(jobKey)));
        LaunchDevice claim = LaunchDevice.claim(device);
        boolean removeDevice = claim.created() && !job.keepDevice();
        List<Process> processes = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> pumps = new ArrayList<>();
        // SIGTERM/SIGINT of the launcher: its ranks are stopped and the device it made goes with them
        // (the ranks, killed, cannot remove it; only SIGKILL leaves that to the last rank out).
        Thread cleanup = Thread.ofPlatform().unstarted(() -> {
            stopAndAwait(snapshot(processes));
            removeDevice(removeDevice, claim, job, jobKey);
        });
        Runtime.getRuntime().addShutdownHook(cleanup);
        int[] exitCodes = new int[job.ranks()];
        List<Restart> restarts = new ArrayList<>();
        int firstFailed = -1;
        AbortWatch aborts = AbortWatch.create();
        boolean removed;
        boolean recorded = false;
        try {
            for (int rank = 0; rank < job.ranks(); rank++) {
                processes.add(start(job, withCache(command, cache, rank, FIRST_INCARNATION), device, jobKey, rank, FIRST_INCARNATION,
                        pumps, removeDevice, aborts));
                listener.started(rank, FIRST_INCARNATION, processes.get(rank));
            }
            Restarter restarter = (rank, incarnation) -> {
                Process p = start(job, withCache(command, cache, rank, incarnation), device, jobKey, rank, incarnation, pumps,
                        removeDevice, aborts);
                processes.set(rank, p);
                listener.started(rank, incarnation, p);
                return p;
            };
            firstFailed = awaitAll(processes, exitCodes, job, restarter, restarts, aborts);
            // rank 0's first process recorded its classes only if it ran to its end
            recorded = exitCodes[0] == 0 && restarts.stream().noneMatch(r -> r.rank() == 0);
            for (Thread pump : snapshot(pumps)) {
                pump.join(Duration.ofSeconds(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockstepException(ErrorClass.OTHER, "launcher interrupted; ranks stopped");
        } finally {
            // Every way out (an interrupt, a rank that cannot start, a listener that throws) stops the
            // ranks and removes the device the launcher made.
            stopAndAwait(snapshot(processes));
            aborts.close();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
            removed = removeDevice(removeDevice, claim, job, jobKey);
            boolean made = recorded;
            cache.ifPresent(c -> c.complete(made));
        }
        return new Outcome(exitCodes, firstFailed, removed, device, restarts, aborts.check());
    }

    /**
     * What can be checked before any process starts, so that it fails once and not in every rank:
     * the host's memory for that many JVMs, and the job properties as the provider will read them
     * (an unknown {@code lockstep.*} key, a bad value, too many ranks). A provider this JVM does not
     * have (it may come with the program's class path) is left to the ranks.
     */
    private static void checkBeforeForking(Job job) {
        try {
            Lockstep.checkOptions(new JobOptions(job.ranks(), job.properties()));
        } catch (LockstepException e) {
            if (e.errorClass() != ErrorClass.NO_PROVIDER) {
                throw e;
            }
        }
        LaunchLimits.check(job.ranks(), job.jvmOptions());
    }

    /** Whether the provider the ranks ran on formatted {@code path} for this job. */
    private static boolean holdsJobDevice(Job job, Path path, long jobKey) {
        try {
            return Lockstep.provider(job.properties().get(Lockstep.PROVIDER_PROPERTY)).holdsJobDevice(path, jobKey);
        } catch (LockstepException noProvider) {
            return false;
        }
    }

    /** Removes the device the launcher made for this job, if it is to be removed and still holds this job. */
    private boolean removeDevice(boolean toRemove, LaunchDevice claim, Job job, long jobKey) {
        if (!toRemove) {
            return false;
        }
        // An interrupted thread's file channel closes at its first read (ClosedByInterruptException),
        // so the superblock could not be read: the interrupt waits until the device is removed.
        boolean interrupted = Thread.interrupted();
        try {
            return claim.removeIfOurs(path -> holdsJobDevice(job, path, jobKey));
        } catch (IOException e) {
            err.println("lockstep run: could not remove device " + claim.path() + ": " + e.getMessage());
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Kills every rank and waits (bounded) until each has gone, so that no rank of this job still
     * writes the device when it is removed. Not interruptible: it runs on the way out.
     */
    private static void stopAndAwait(List<Process> processes) {
        processes.forEach(Process::destroyForcibly);
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        for (Process p : processes) {
            while (p.isAlive() && System.nanoTime() - deadline < 0) {
                p.onExit().completeOnTimeout(p, 10, TimeUnit.MILLISECONDS).join();
            }
        }
    }

    /**
     * Runs this same {@code lockstep} command line as {@code ranks} launched processes: the
     * arguments without {@code --processes}, on the {@code mapped} device unless one is named.
     * Every rank then finds the launcher's world through {@link LaunchEnvironment}.
     */
    public static int relaunchCommand(List<String> originalArguments, int ranks, List<String> jvmOptions, boolean bindToCore) {
        List<String> arguments = new ArrayList<>();
        for (int i = 0; i < originalArguments.size(); i++) {
            String arg = originalArguments.get(i);
            if (arg.equals("--processes")) {
                i++;
            } else if (!arg.startsWith("--processes=")) {
                arguments.add(arg);
            }
        }
        if (arguments.stream().noneMatch(a -> a.equals("--device") || a.startsWith("--device="))) {
            arguments.add("--device=mapped");
        }
        Job job = new Job(ranks, "org.lockstep.tools/" + LockstepCommand.class.getName(), arguments, Optional.empty(), Map.of(),
                jvmOptions, List.of(), false, Duration.ofSeconds(10), bindToCore);
        return new ProcessLauncher(System.out, System.err).run(job).exitCode();
    }

    private static <T> List<T> snapshot(List<T> list) {
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    /** The command of {@code rank}'s {@code incarnation}: the AOT cache's options, if one is used, right after the java executable. */
    private static List<String> withCache(List<String> command, Optional<RankStartCache.Job> cache, int rank, int incarnation) {
        if (cache.isEmpty()) {
            return command;
        }
        List<String> withCache = new ArrayList<>(command.size() + 3);
        withCache.add(command.getFirst());
        withCache.addAll(cache.get().options(rank, incarnation));
        withCache.addAll(command.subList(1, command.size()));
        return withCache;
    }

    /** Starts one process of {@code rank} as {@code incarnation}, its output copied with its rank as prefix. */
    private Process start(Job job, List<String> command, Path device, long jobKey, int rank, int incarnation, List<Thread> pumps,
                          boolean removeDevice, AbortWatch aborts) {
        String tag = FlightRecording.rankTag(rank, incarnation);
        List<String> withRank = command.stream().map(a -> a.replace(FlightRecording.RANK, tag)).toList();
        List<String> rankCommand = withRank;
        if (job.bindToCore()) {
            // As mpirun --bind-to core: rank r runs on core r mod cores (taskset from util-linux).
            int cores = Runtime.getRuntime().availableProcessors();
            rankCommand = new ArrayList<>(List.of("taskset", "-c", Integer.toString(rank % cores)));
            rankCommand.addAll(withRank);
        }
        ProcessBuilder builder = new ProcessBuilder(rankCommand);
        Map<String, String> env = builder.environment();
        env.put(LaunchEnvironment.RANK, Integer.toString(rank));
        env.put(LaunchEnvironment.SIZE, Integer.toString(job.ranks()));
        env.put(LaunchEnvironment.DEVICE, device.toString());
        env.put(LaunchEnvironment.JOB_KEY, Long.toHexString(jobKey));
        env.put(LaunchEnvironment.INCARNATION, Integer.toString(incarnation));
        env.put(LaunchEnvironment.LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
        env.put(LaunchEnvironment.REMOVE_DEVICE, Boolean.toString(removeDevice));
        env.put(LaunchEnvironment.ABORT_FILE, aborts.file());
        env.put(LaunchEnvironment.PROPERTIES, job.properties().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n")));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new LockstepException(ErrorClass.OTHER, "cannot start rank " + rank + " (" + command.getFirst() + "): " + e.getMessage(), e);
        }
        String notice = RankStartCache.recordNotice(command).orElse(null);
        synchronized (pumps) {
            pumps.add(pump(process.getInputStream(), out, rank, new RankOutput(verbose, notice)));
            pumps.add(pump(process.getErrorStream(), err, rank, new RankOutput(verbose, notice)));
        }
        return process;
    }

    /** Starts the next incarnation of a rank. */
    @FunctionalInterface
    private interface Restarter {
        Process restart(int rank, int incarnation);
    }

    /**
     * Waits for every rank. A rank that fails while restarts remain is started again as its next
     * incarnation and the others go on; after a failure that is not restarted, waits {@code grace}
     * for the rest, then stops them. A rank that aborts the job ({@link AbortNotice}) has the others
     * stopped at once and restarts none; it is given the grace period to exit itself.
     */
    private int awaitAll(List<Process> processes, int[] exitCodes, Job job, Restarter restarter, List<Restart> restarts,
                         AbortWatch aborts) throws InterruptedException {
        Duration grace = job.grace();
        int firstFailed = -1;
        long graceDeadline = Long.MAX_VALUE;
        int ranks = job.ranks();
        boolean[] done = new boolean[ranks];
        int[] incarnation = new int[ranks];
        java.util.Arrays.fill(incarnation, FIRST_INCARNATION);
        int remaining = ranks;
        StoppedRanks stopped = new StoppedRanks(ranks);
        boolean aborted = false;
        while (remaining > 0) {
            stopped.check(processes, done, err);
            Optional<AbortNotice> abort = aborts.check();
            if (abort.isPresent() && !aborted) {
                aborted = true;
                stopTheOthers(abort.get(), processes, done);
                firstFailed = firstFailed < 0 ? abort.get().rank() : firstFailed;
                if (graceDeadline == Long.MAX_VALUE) {
                    graceDeadline = System.nanoTime() + grace.toNanos();
                }
            }
            if (cancelled && graceDeadline == Long.MAX_VALUE) {
                err.println("lockstep run: cancelled; stopping every rank");
                processes.forEach(Process::destroyForcibly);
                graceDeadline = System.nanoTime();
                firstFailed = firstFailed < 0 ? 0 : firstFailed;
            }
            for (int rank = 0; rank < ranks; rank++) {
                Process p = processes.get(rank);
                if (done[rank] || !p.waitFor(20, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                int code = p.exitValue();
                long diedAt = System.nanoTime();
                if (code != 0 && firstFailed < 0 && !cancelled && aborts.check().isEmpty() && restarts.size() < job.maxRestarts()) {
                    incarnation[rank]++;
                    err.println("lockstep run: rank " + rank + " " + describeExit(code) + "; restarting it as incarnation "
                            + incarnation[rank] + " (restart " + (restarts.size() + 1) + " of at most " + job.maxRestarts() + ")");
                    restarter.restart(rank, incarnation[rank]);
                    restarts.add(new Restart(rank, incarnation[rank], code, diedAt, System.nanoTime()));
                    continue;
                }
                done[rank] = true;
                remaining--;
                exitCodes[rank] = code;
                Optional<AbortNotice> abortedMeanwhile = code != 0 && firstFailed < 0 ? aborts.check() : Optional.empty();
                if (abortedMeanwhile.isPresent()) {
                    // The abort arrived after this round's check: the job ends with it even if every rank is done now.
                    firstFailed = abortedMeanwhile.get().rank();
                } else if (code != 0 && firstFailed < 0) {
                    firstFailed = rank;
                    String exhausted = job.maxRestarts() > 0 ? " and all " + job.maxRestarts() + " restarts are used" : "";
                    err.println("lockstep run: rank " + rank + " " + describeExit(code) + exhausted
                            + "; the other ranks have " + grace.toSeconds() + " s to end");
                    graceDeadline = System.nanoTime() + grace.toNanos();
                }
            }
            if (remaining > 0 && System.nanoTime() - graceDeadline > 0) {
                for (int rank = 0; rank < ranks; rank++) {
                    if (!done[rank]) {
                        err.println("lockstep run: stopping rank " + rank + " after the grace period");
                        processes.get(rank).destroyForcibly();
                    }
                }
                graceDeadline = Long.MAX_VALUE;
            }
        }
        return firstFailed;
    }

    /** A rank aborted the job: every other rank is stopped now, whatever it is doing. */
    private void stopTheOthers(AbortNotice notice, List<Process> processes, boolean[] done) {
        err.println("lockstep run: rank " + notice.rank() + " aborted the job with exit code " + notice.exitCode() + " ("
                + notice.reason() + "); stopping every other rank");
        for (int rank = 0; rank < done.length; rank++) {
            if (!done[rank] && rank != notice.rank()) {
                processes.get(rank).destroyForcibly();
            }
        }
    }

    static String describeExit(int code) {
        return code > 128 && code < 160 ? "was killed by signal " + (code - 128) + " (exit code " + code + ")"
                : "exited with code " + code;
    }

    private static Thread pump(InputStream stream, PrintStream target, int rank, RankOutput filter) {
        return Thread.ofPlatform().daemon().name("lockstep-run-output-" + rank).start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    String copied = filter.filter(line);
                    if (copied == null) {
                        continue;
                    }
                    synchronized (target) {
                        target.println("[" + rank + "] " + copied);
                    }
                }
            } catch (IOException e) {
                // the process ended; nothing more to copy
            }
        });
    }

    /** The command line of one rank: this JDK, this module path, the program as a module main class or on the class path. */
    static List<String> command(Job job) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(job.jvmOptions());
        command.add("--enable-native-access=ALL-UNNAMED,org.lockstep.pcie,org.lockstep.emulated,org.lockstep.mpi,org.lockstep.embsp");
        String modulePath = System.getProperty("jdk.module.path", "");
        List<String> classPath = new ArrayList<>(job.classPath());
        String target = job.mainClassOrJar();
        String mainClass = target;
        if (target.endsWith(".jar")) {
            Path jar = Path.of(target);
            if (!Files.isRegularFile(jar)) {
                throw new LockstepException(ErrorClass.ARG, "no such jar: " + jar);
            }
            mainClass = mainClassOf(jar);
            classPath.add(jar.toString());
        }
        if (!modulePath.isEmpty()) {
            command.add("-p");
            command.add(modulePath);
            command.add("--add-modules");
            command.add("ALL-MODULE-PATH");
        } else {
            classPath.add(System.getProperty("java.class.path", ""));
        }
        Optional<String> module = mainClass.contains("/") ? Optional.of(mainClass.substring(0, mainClass.indexOf('/')))
                : onClassPath(mainClass, classPath) ? Optional.empty() : moduleOf(mainClass);
        if (mainClass.contains("/")) {
            mainClass = mainClass.substring(mainClass.indexOf('/') + 1);
        }
        if (!classPath.isEmpty()) {
            command.add("-cp");
            command.add(String.join(java.io.File.pathSeparator, classPath));
        }
        if (module.isPresent() && !modulePath.isEmpty()) {
            command.add("-m");
            command.add(module.get() + "/" + mainClass);
        } else {
            command.add(mainClass);
        }
        command.addAll(job.arguments());
        return command;
    }

    /** Whether a directory or jar of {@code classPath} holds {@code className}. */
    private static boolean onClassPath(String className, List<String> classPath) {
        String entry = className.replace('.', '/') + ".class";
        for (String element : classPath) {
            Path path = Path.of(element);
            if (Files.isDirectory(path) && Files.isRegularFile(path.resolve(entry))) {
                return true;
            }
            if (Files.isRegularFile(path) && element.endsWith(".jar")) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    if (jar.getEntry(entry) != null) {
                        return true;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + path, e);
                }
            }
        }
        return false;
    }

    /** The named module of this JVM's boot layer that holds {@code className}, if any. */
    private static Optional<String> moduleOf(String className) {
        int dot = className.lastIndexOf('.');
        if (dot < 0) {
            return Optional.empty();
        }
        String pkg = className.substring(0, dot);
        return ModuleLayer.boot().modules().stream()
                .filter(m -> m.getPackages().contains(pkg) && !m.getName().startsWith("java.") && !m.getName().startsWith("jdk."))
                .map(Module::getName).findFirst();
    }

    private static String mainClassOf(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            String main = file.getManifest() == null ? null : file.getManifest().getMainAttributes().getValue("Main-Class");
            if (main == null) {
                throw new LockstepException(ErrorClass.ARG, jar + " has no Main-Class in its manifest; give the main class instead");
            }
            return main;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + jar, e);
        }
    }
}
