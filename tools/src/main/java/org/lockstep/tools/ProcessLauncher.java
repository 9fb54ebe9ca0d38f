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

import org.lockstep.api.ErrorClass;
import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.LockstepException;

/**
 * Starts the N processes of a job on this host: each a JVM on this JDK, with this JVM's module
 * path, told its rank, the world size, the device path and the job key through the environment
 * ({@link LaunchEnvironment}). Prefixes every line a rank prints with its rank; when a rank fails,
 * reports it, gives the others a grace period to notice and end, then stops them; removes the
 * device file it created unless asked to keep it.
 */
public final class ProcessLauncher {
    /** What a launch is asked to do. */
    public record Job(int ranks, String mainClassOrJar, List<String> arguments, Optional<Path> device,
                      Map<String, String> properties, List<String> jvmOptions, List<String> classPath,
                      boolean keepDevice, Duration grace, boolean bindToCore) {
        public Job {
            if (ranks < 1) {
                throw new LockstepException(ErrorClass.ARG, "a job needs at least one rank, got " + ranks);
            }
            arguments = List.copyOf(arguments);
            properties = Map.copyOf(properties);
            jvmOptions = List.copyOf(jvmOptions);
            classPath = List.copyOf(classPath);
        }
    }

    /** How a launch ended. {@code exitCodes[r]} is rank r's exit code. */
    public record Outcome(int[] exitCodes, int firstFailedRank, boolean deviceRemoved, Path device) {
        /** 0 when every rank succeeded, else the first failed rank's code (1 if that was 0 because it was stopped). */
        public int exitCode() {
            if (firstFailedRank < 0) {
                return 0;
            }
            int code = exitCodes[firstFailedRank];
            return code == 0 ? 1 : code;
        }
    }

    private final PrintStream out;
    private final PrintStream err;

    public ProcessLauncher(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Runs the job to its end. */
    public Outcome run(Job job) {
        long jobKey = new SecureRandom().nextLong();
        Path device = job.device().orElse(Path.of("/dev/shm", "lockstep-" + Long.toHexString(jobKey)));
        boolean deviceExisted = Files.exists(device);
        List<Process> processes = new ArrayList<>();
        List<Thread> pumps = new ArrayList<>();
        Thread cleanup = Thread.ofPlatform().unstarted(() -> processes.forEach(Process::destroyForcibly));
        Runtime.getRuntime().addShutdownHook(cleanup);
        int[] exitCodes = new int[job.ranks()];
        int firstFailed = -1;
        try {
            List<String> command = command(job);
            int cores = Runtime.getRuntime().availableProcessors();
            for (int rank = 0; rank < job.ranks(); rank++) {
                List<String> rankCommand = command;
                if (job.bindToCore()) {
                    // As mpirun --bind-to core: rank r runs on core r mod cores (taskset from util-linux).
                    rankCommand = new ArrayList<>(List.of("taskset", "-c", Integer.toString(rank % cores)));
                    rankCommand.addAll(command);
                }
                ProcessBuilder builder = new ProcessBuilder(rankCommand);
                Map<String, String> env = builder.environment();
                env.put(LaunchEnvironment.RANK, Integer.toString(rank));
                env.put(LaunchEnvironment.SIZE, Integer.toString(job.ranks()));
                env.put(LaunchEnvironment.DEVICE, device.toString());
                env.put(LaunchEnvironment.JOB_KEY, Long.toHexString(jobKey));
                env.put(LaunchEnvironment.PROPERTIES, job.properties().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n")));
                Process process;
                try {
                    process = builder.start();
                } catch (IOException e) {
                    throw new LockstepException(ErrorClass.OTHER, "cannot start rank " + rank + " (" + command.getFirst() + "): " + e.getMessage(), e);
                }
                processes.add(process);
                pumps.add(pump(process.getInputStream(), out, rank));
                pumps.add(pump(process.getErrorStream(), err, rank));
            }
            firstFailed = awaitAll(processes, exitCodes, job.grace());
            for (Thread pump : pumps) {
                pump.join(Duration.ofSeconds(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            processes.forEach(Process::destroyForcibly);
            throw new LockstepException(ErrorClass.OTHER, "launcher interrupted; ranks stopped");
        } finally {
            processes.forEach(Process::destroyForcibly);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        boolean removed = false;
        if (!job.keepDevice() && !deviceExisted) {
            try {
                removed = Files.deleteIfExists(device);
            } catch (IOException e) {
                err.println("lockstep run: could not remove device " + device + ": " + e.getMessage());
            }
        }
        return new Outcome(exitCodes, firstFailed, removed, device);
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

    /** Waits for every rank; after the first failure, waits {@code grace} for the rest, then stops them. */
    private int awaitAll(List<Process> processes, int[] exitCodes, Duration grace) throws InterruptedException {
        int firstFailed = -1;
        long graceDeadline = Long.MAX_VALUE;
        boolean[] done = new boolean[processes.size()];
        int remaining = processes.size();
        while (remaining > 0) {
            for (int rank = 0; rank < processes.size(); rank++) {
                Process p = processes.get(rank);
                if (done[rank] || !p.waitFor(20, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                done[rank] = true;
                remaining--;
                exitCodes[rank] = p.exitValue();
                if (exitCodes[rank] != 0 && firstFailed < 0) {
                    firstFailed = rank;
                    err.println("lockstep run: rank " + rank + " " + describeExit(exitCodes[rank])
                            + "; the other ranks have " + grace.toSeconds() + " s to end");
                    graceDeadline = System.nanoTime() + grace.toNanos();
                }
            }
            if (remaining > 0 && System.nanoTime() - graceDeadline > 0) {
                for (int rank = 0; rank < processes.size(); rank++) {
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

    static String describeExit(int code) {
        return code > 128 && code < 160 ? "was killed by signal " + (code - 128) + " (exit code " + code + ")"
                : "exited with code " + code;
    }

    private static Thread pump(InputStream stream, PrintStream target, int rank) {
        return Thread.ofPlatform().daemon().name("lockstep-run-output-" + rank).start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    synchronized (target) {
                        target.println("[" + rank + "] " + line);
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
        command.add("--enable-native-access=ALL-UNNAMED,org.lockstep.pcie,org.lockstep.emulated");
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
