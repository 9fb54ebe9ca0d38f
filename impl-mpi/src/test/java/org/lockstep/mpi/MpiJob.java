package org.lockstep.mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a test program of this module as an MPI job: {@code mpirun} of Open MPI or MPICH with one
 * JVM per rank, on this JVM's module path with the test classes patched into the module. Waits
 * with a deadline, kills the whole job on timeout, and returns what it printed.
 */
final class MpiJob {
    static final String MODULE = "org.lockstep.mpi";
    static final Duration DEADLINE = Duration.ofSeconds(180);

    /** An installed MPI's launcher and the flags that make it run a job of this many ranks on one small machine. */
    enum Launcher {
        OPEN_MPI("mpirun.openmpi", "--oversubscribe"),
        MPICH("mpirun.mpich");

        final String command;
        final List<String> flags;

        Launcher(String command, String... flags) {
            this.command = command;
            this.flags = List.of(flags);
        }

        boolean installed() {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
                if (Files.isExecutable(Path.of(dir, command))) {
                    return true;
                }
            }
            return false;
        }
    }

    record Outcome(int exitCode, String output, boolean timedOut) {
        long lines(String text) {
            return output.lines().filter(l -> l.contains(text)).count();
        }
    }

    private MpiJob() {
    }

    /** The JVM command of one rank running {@code main} with {@code arguments}, with system properties (the provider among them). */
    static List<String> jvm(Class<?> main, List<String> properties, String... arguments) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "--enable-native-access=" + MODULE + ",org.lockstep.pcie", "--module-path", System.getProperty("jdk.module.path"),
                "--patch-module", MODULE + "=" + testClasses()));
        command.addAll(properties);
        command.addAll(List.of("--module", MODULE + "/" + main.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    /** Runs {@code ranks} copies of {@code jvm} under {@code launcher}. */
    static Outcome run(Launcher launcher, int ranks, List<String> launcherFlags, List<String> jvm) throws IOException, InterruptedException {
        return run(launcher, ranks, launcherFlags, jvm, Map.of());
    }

    /** As {@link #run(Launcher, int, List, List)}, with extra environment for the launcher and its ranks. */
    static Outcome run(Launcher launcher, int ranks, List<String> launcherFlags, List<String> jvm, Map<String, String> environment)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(launcher.command));
        command.addAll(launcher.flags);
        command.addAll(launcherFlags);
        command.addAll(List.of("-np", Integer.toString(ranks)));
        command.addAll(jvm);
        return start(command, environment);
    }

    /** Runs any command with the environment MPI launchers need here (root allowed), under the deadline. */
    static Outcome start(List<String> command, Map<String, String> environment) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
        builder.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        builder.environment().putAll(environment);
        Process process = builder.start();
        StringBuilder output = new StringBuilder();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try {
                output.append(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                output.append("(output lost: ").append(e).append(")");
            }
        });
        boolean finished = process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(Duration.ofSeconds(10));
        synchronized (output) {
            return new Outcome(finished ? process.exitValue() : -1, output.toString(), !finished);
        }
    }

    private static String testClasses() {
        String patch = System.getProperty("jdk.module.patch.0");
        if (patch != null && patch.startsWith(MODULE + "=")) {
            return patch.substring(MODULE.length() + 1);
        }
        return Path.of(System.getProperty("user.dir"), "target", "test-classes").toString();
    }
}
