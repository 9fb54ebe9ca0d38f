package org.lockstep.conformance.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.lockstep.api.LaunchEnvironment;
import org.lockstep.api.Lockstep;

/**
 * A job of separate rank processes on this host, started by the kit the way a launcher starts
 * them: a small {@code sh} process is the launcher (the ranks' parent, named in
 * {@link LaunchEnvironment#LAUNCHER_PID}) and starts each rank JVM on this JVM's module and class
 * path, running {@link ProcessRank}, with the {@code LOCKSTEP_*} variables of the job. The kit's
 * process rules stop a rank or kill the launcher and watch what the others do. Closing kills
 * whatever is left and removes the job's device file.
 */
public final class ProcessJob implements AutoCloseable {
    private static final Pattern HOLDING = Pattern.compile("rank (\\d+) pid (\\d+) holding");

    private final Process launcher;
    private final Path device;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private ProcessJob(Process launcher, Path device) {
        this.launcher = launcher;
        this.device = device;
        Thread.ofPlatform().daemon().name("kit-process-job-output").start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
                reader.lines().forEach(lines::add);
            } catch (IOException | UncheckedIOException ended) {
                // the launcher was killed
            }
        });
    }

    /**
     * Starts {@code ranks} processes of {@code program} ({@link ProcessRank}'s) on provider
     * {@code provider} with the job properties {@code properties}.
     */
    public static ProcessJob start(String provider, Map<String, String> properties, int ranks, String... program) {
        long key = new SecureRandom().nextLong();
        Path device = Path.of("/dev/shm", "lockstep-kit-" + Long.toHexString(key));
        List<String> command = new ArrayList<>(List.of("sh", "-c",
                "export " + LaunchEnvironment.LAUNCHER_PID + "=$$; r=0; while [ $r -lt " + ranks + " ]; do "
                        + LaunchEnvironment.RANK + "=$r \"$@\" & r=$((r + 1)); done; wait", "kit-launcher"));
        command.addAll(rankCommand(program));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("LOCKSTEP_"));
        env.put(LaunchEnvironment.SIZE, Integer.toString(ranks));
        env.put(LaunchEnvironment.DEVICE, device.toString());
        env.put(LaunchEnvironment.JOB_KEY, Long.toHexString(key));
        env.put(LaunchEnvironment.REMOVE_DEVICE, "true");
        env.put(LaunchEnvironment.PROPERTIES, properties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n")) + "\n" + Lockstep.PROVIDER_PROPERTY + "=" + provider);
        try {
            return new ProcessJob(builder.start(), device);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a kit job of separate processes", e);
        }
    }

    /** This JVM's java, module path and class path, running {@link ProcessRank} with {@code program}. */
    private static List<String> rankCommand(String... program) {
        return javaCommand(List.of("-Xmx64m"), ProcessRank.class, List.of(program));
    }

    /**
     * A JVM like this one: its java, module path and class path, native access for its own
     * modules, the options {@code jvmOptions}, running {@code main} (of this module) with {@code arguments}.
     */
    public static List<String> javaCommand(List<String> jvmOptions, Class<?> main, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        String modulePath = System.getProperty("jdk.module.path", "");
        // every module the child may resolve: this JVM's, and those on its module path that it left unresolved
        java.util.Set<String> names = new java.util.TreeSet<>();
        ModuleLayer.boot().modules().stream().map(Module::getName).forEach(names::add);
        if (!modulePath.isEmpty()) {
            try {
                java.lang.module.ModuleFinder.of(java.util.Arrays.stream(modulePath.split(java.io.File.pathSeparator)).map(Path::of)
                        .toArray(Path[]::new)).findAll().forEach(m -> names.add(m.descriptor().name()));
            } catch (java.lang.module.FindException unreadable) {
                // the child fails on the same path and says why; native access is the least of it
            }
        }
        String ownModules = names.stream().filter(n -> !n.startsWith("java.") && !n.startsWith("jdk.")).collect(Collectors.joining(","));
        command.add("--enable-native-access=ALL-UNNAMED" + (ownModules.isEmpty() ? "" : "," + ownModules));
        String classPath = System.getProperty("java.class.path", "");
        if (!classPath.isEmpty()) {
            command.add("-cp");
            command.add(classPath);
        }
        if (!modulePath.isEmpty() && main.getModule().isNamed()) {
            command.addAll(List.of("-p", modulePath, "--add-modules", "ALL-MODULE-PATH", "-m",
                    main.getModule().getName() + "/" + main.getName()));
        } else {
            command.add(main.getName());
        }
        command.addAll(arguments);
        return command;
    }

    /** The device file the job's ranks share. */
    public Path device() {
        return device;
    }

    /** The launcher process (the ranks' parent). */
    public Process launcher() {
        return launcher;
    }

    /** What the ranks have printed so far. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits until {@code count} lines satisfy {@code what}; false if {@code deadline} passes first. */
    public boolean awaitLines(Predicate<String> what, int count, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (lines.stream().filter(what).count() < count) {
            if (System.nanoTime() - end > 0) {
                return false;
            }
            pause();
        }
        return true;
    }

    /** The process id of {@code rank}, from its "holding" line. */
    public OptionalLong pidOf(int rank) {
        for (String line : lines) {
            Matcher m = HOLDING.matcher(line);
            if (m.find() && Integer.parseInt(m.group(1)) == rank) {
                return OptionalLong.of(Long.parseLong(m.group(2)));
            }
        }
        return OptionalLong.empty();
    }

    /** Sends {@code signal} (e.g. {@code STOP}) to a process, as {@code kill -SIGNAL} does. */
    public static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            kill.waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        launcher.descendants().forEach(ProcessHandle::destroyForcibly);
        for (String line : lines) { // ranks whose launcher was killed are no longer its descendants
            Matcher m = HOLDING.matcher(line);
            if (m.find()) {
                ProcessHandle.of(Long.parseLong(m.group(2))).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        launcher.destroyForcibly();
        try {
            Files.deleteIfExists(device);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
