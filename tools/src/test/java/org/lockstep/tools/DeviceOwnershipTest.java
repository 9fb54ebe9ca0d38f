package org.lockstep.tools;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.lockstep.api.LaunchEnvironment;

/**
 * Whose device file is whose: the launcher removes only the file it made, never another job's;
 * ranks end with their launcher and the device goes with them; ranks started without our launcher
 * remove the file they made when the last of them leaves; a link or someone else's file at the
 * device path is refused and left alone. Every job here is real JVM processes over /dev/shm.
 */
@Timeout(300)
class DeviceOwnershipTest {
    static final String PROGRAMS = "org.lockstep.launchtest.ReliabilityPrograms";
    static final List<String> SMALL_JVM = List.of("-Xms32m", "-Xmx32m", "-XX:TieredStopAtLevel=1", "-Xshare:auto");
    static final Duration SLOW_MACHINE = Duration.ofSeconds(120);

    private final List<Path> paths = new ArrayList<>();
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();

    record Launch(ProcessLauncher.Outcome outcome, String out, String err) {
    }

    static String testClasses() {
        return Path.of("target", "test-classes").toAbsolutePath().toString();
    }

    static ProcessLauncher.Job job(int ranks, Optional<Path> device, boolean keep, String... args) {
        return new ProcessLauncher.Job(ranks, PROGRAMS, List.of(args), device, Map.of(), SMALL_JVM, List.of(testClasses()), keep,
                Duration.ofSeconds(5), false);
    }

    static ProcessLauncher.Job job(int ranks, Optional<Path> device, Map<String, String> properties, String... args) {
        return new ProcessLauncher.Job(ranks, PROGRAMS, List.of(args), device, properties, SMALL_JVM, List.of(testClasses()), false,
                Duration.ofSeconds(5), false);
    }

    static Launch launch(ProcessLauncher.Job job) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            outcome = new ProcessLauncher(o, e).run(job);
        }
        return new Launch(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path shm(String label) {
        Path path = Path.of("/dev/shm", "lockstep-test-" + label + "-" + Long.toHexString(new SecureRandom().nextLong()));
        paths.add(path);
        return path;
    }

    @AfterEach
    void cleanUp() throws IOException {
        executors.forEach(ExecutorService::shutdownNow);
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void aSecondJobOnTheSameDevicePathFailsAndNeverRemovesTheFirstJobsDevice(@TempDir Path dir) throws Exception {
        Path device = shm("shared");
        Path release = dir.resolve("release");
        // Both start at once, before either's ranks exist: the launcher that claims the path first owns it.
        // Own threads: the common pool may have a single worker, which would run the two launches one after the other.
        ExecutorService launchers = Executors.newFixedThreadPool(2);
        executors.add(launchers);
        CompletableFuture<Launch> first = CompletableFuture.supplyAsync(() -> launch(job(2, Optional.of(device), true, "hold",
                release.toString())), launchers);
        CompletableFuture<Launch> second = CompletableFuture.supplyAsync(() -> launch(job(2, Optional.of(device), false, "hold",
                release.toString())), launchers);
        Launch failed = (Launch) CompletableFuture.anyOf(first, second).get(SLOW_MACHINE.toSeconds(), TimeUnit.SECONDS);
        assertNotEquals(0, failed.outcome().exitCode(), failed.err() + failed.out());
        assertTrue(failed.err().contains("belongs to job"), failed.err());
        assertFalse(failed.outcome().deviceRemoved());
        assertTrue(Files.exists(device), "the job that failed left the running job's device alone");
        Files.createFile(release);
        Launch winner = failed == first.getNow(null) ? second.join() : first.join();
        assertEquals(0, winner.outcome().exitCode(), winner.err() + winner.out());
        assertTrue(winner.out().contains("[1] rank 1 released"), winner.out());
    }

    @Test
    void killingTheLauncherEndsItsRanksAndRemovesTheDevice(@TempDir Path dir) throws IOException {
        Path device = shm("orphan");
        Path release = dir.resolve("never");
        List<String> command = ProcessLauncher.command(new ProcessLauncher.Job(1, "org.lockstep.tools/" + LockstepCommand.class.getName(),
                List.of("run", "-n", "2", "--device", device.toString(), "--jvm-option=-Xmx32m", "--jvm-option=-XX:TieredStopAtLevel=1",
                        "-cp", testClasses(), PROGRAMS, "hold", release.toString()),
                Optional.empty(), Map.of(), List.of("-Xmx64m"), List.of(), false, Duration.ZERO, false));
        Process launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(launcher);
        List<String> lines = new CopyOnWriteArrayList<>();
        collect(launcher, lines);
        await().atMost(SLOW_MACHINE).until(() -> lines.stream().filter(l -> l.contains(" holding")).count() == 2);
        List<Long> ranks = new ArrayList<>();
        Pattern holding = Pattern.compile("pid (\\d+) holding");
        for (String line : lines) {
            Matcher m = holding.matcher(line);
            if (m.find()) {
                ranks.add(Long.parseLong(m.group(1)));
            }
        }
        assertEquals(2, ranks.size(), String.join("\n", lines));
        assertTrue(Files.exists(device));
        launcher.destroyForcibly(); // SIGKILL: no hook of the launcher runs
        await().atMost(Duration.ofSeconds(30)).until(() -> ranks.stream().noneMatch(pid -> ProcessHandle.of(pid)
                .map(ProcessHandle::isAlive).orElse(false)));
        await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(device));
    }

    @Test
    void terminatingTheLauncherEndsItsRanksAndRemovesTheDevice(@TempDir Path dir) throws IOException {
        Path device = shm("terminated");
        List<String> command = ProcessLauncher.command(new ProcessLauncher.Job(1, "org.lockstep.tools/" + LockstepCommand.class.getName(),
                List.of("run", "-n", "2", "--device", device.toString(), "--jvm-option=-Xmx32m", "--jvm-option=-XX:TieredStopAtLevel=1",
                        "-cp", testClasses(), PROGRAMS, "hold", dir.resolve("never").toString()),
                Optional.empty(), Map.of(), List.of("-Xmx64m"), List.of(), false, Duration.ZERO, false));
        Process launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(launcher);
        List<String> lines = new CopyOnWriteArrayList<>();
        collect(launcher, lines);
        await().atMost(SLOW_MACHINE).until(() -> holdingRanks(lines).size() == 2);
        List<Long> ranks = holdingRanks(lines);
        launcher.destroy(); // SIGTERM, as kill or a CI timeout sends: the launcher's shutdown hook runs
        await().atMost(Duration.ofSeconds(30)).until(() -> !launcher.isAlive() && ranks.stream().noneMatch(pid -> ProcessHandle.of(pid)
                .map(ProcessHandle::isAlive).orElse(false)));
        assertFalse(Files.exists(device), "the launcher's hook removed the device it made; output:\n" + String.join("\n", lines));
    }

    @Test
    void anInterruptedLauncherStopsItsRanksAndRemovesTheDevice(@TempDir Path dir) throws Exception {
        Path device = shm("interrupted");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream printed = new PrintStream(out, true, StandardCharsets.UTF_8);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread launching = Thread.ofPlatform().start(() -> {
            try {
                new ProcessLauncher(printed, printed).run(job(2, Optional.of(device), false, "hold", dir.resolve("never").toString()));
                failure.complete(null);
            } catch (Throwable t) {
                failure.complete(t);
            }
        });
        await().atMost(SLOW_MACHINE).until(() -> holdingRanks(printedLines(out, printed)).size() == 2);
        List<Long> ranks = holdingRanks(printedLines(out, printed));
        launching.interrupt(); // as JUnit's @Timeout does to a test that launched a job
        Throwable thrown = failure.get(SLOW_MACHINE.toSeconds(), TimeUnit.SECONDS);
        assertTrue(thrown != null && thrown.getMessage().contains("launcher interrupted"), String.valueOf(thrown));
        assertTrue(ranks.stream().noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)), "ranks stopped");
        assertFalse(Files.exists(device), "the interrupted launcher removed the device it made");
    }

    @Test
    void aLaunchThatFailsAfterItsFirstRankStartedStopsThatRankAndRemovesTheDevice(@TempDir Path dir) {
        Path device = shm("half-started");
        List<Process> started = new CopyOnWriteArrayList<>();
        ProcessLauncher.StartListener failsAtTheSecondRank = (rank, incarnation, process) -> {
            started.add(process);
            if (rank == 1) {
                throw new IllegalStateException("the second rank cannot be watched");
            }
        };
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> new ProcessLauncher(
                quiet, quiet).run(job(2, Optional.of(device), false, "hold", dir.resolve("never").toString()), failsAtTheSecondRank));
        assertTrue(e.getMessage().contains("second rank"), e.getMessage());
        assertEquals(2, started.size());
        assertTrue(started.stream().noneMatch(Process::isAlive), "the started ranks were stopped");
        assertFalse(Files.exists(device), "the device the launcher made was removed");
    }

    private static List<String> printedLines(ByteArrayOutputStream out, PrintStream printed) {
        synchronized (printed) {
            return out.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** The process ids of the ranks that said they are holding. */
    private static List<Long> holdingRanks(List<String> lines) {
        List<Long> ranks = new ArrayList<>();
        Pattern holding = Pattern.compile("pid (\\d+) holding");
        for (String line : lines) {
            Matcher m = holding.matcher(line);
            if (m.find()) {
                ranks.add(Long.parseLong(m.group(1)));
            }
        }
        return ranks;
    }

    @Test
    void ranksStartedWithoutOurLauncherRemoveTheDeviceTheyMadeAndKeepItWhenAsked() throws Exception {
        for (boolean keep : new boolean[] {false, true}) {
            Path device = shm("engine");
            Map<String, String> properties = keep ? Map.of("lockstep.device.keep", "true") : Map.of();
            for (Process p : startWithoutLauncher(device, new SecureRandom().nextLong(), properties, "ring")) {
                String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, p.waitFor(), output);
            }
            assertEquals(keep, Files.exists(device), keep ? "lockstep.device.keep=true keeps it" : "the last rank out removed it");
        }
    }

    @Test
    void aKeptDeviceIsRefusedWithTheReasonAndFormattedAfreshWithReuseDevice() {
        Path device = shm("kept");
        Launch first = launch(job(2, Optional.of(device), true, "ring"));
        assertEquals(0, first.outcome().exitCode(), first.err());
        assertTrue(Files.exists(device), "--keep-device kept it");
        Launch again = launch(job(2, Optional.of(device), false, "ring"));
        assertNotEquals(0, again.outcome().exitCode(), again.out());
        assertTrue(again.err().contains("which has ended") && again.err().contains("--reuse-device"), again.err());
        Launch reused = launch(job(2, Optional.of(device), Map.of(RunCommand.REUSE_DEVICE_PROPERTY, "true"), "ring"));
        assertEquals(0, reused.outcome().exitCode(), reused.err());
        assertTrue(reused.out().contains("[1] rank 1 ring OK"), reused.out());
        assertTrue(Files.exists(device), "a reused device is not the launcher's to remove");
    }

    @Test
    void aRunAfterAKilledRunOfTheSameJobSaysSoInsteadOfFailingObscurely(@TempDir Path dir) throws Exception {
        Path device = shm("rerun");
        long key = new SecureRandom().nextLong();
        List<Process> killed = startWithoutLauncher(device, key, Map.of(), "hold", dir.resolve("never").toString());
        List<String> lines = new CopyOnWriteArrayList<>();
        killed.forEach(p -> collect(p, lines));
        await().atMost(SLOW_MACHINE).until(() -> lines.stream().filter(l -> l.contains(" holding")).count() == 2);
        killed.forEach(Process::destroyForcibly); // kill -9: nothing of theirs removes the device
        for (Process p : killed) {
            p.waitFor();
        }
        assertTrue(Files.exists(device), "a job killed with -9 leaves its device behind");
        for (Process p : startWithoutLauncher(device, key, Map.of(), "ring")) {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertNotEquals(0, p.waitFor(), output);
            assertTrue(output.contains("an earlier run of this job"), output);
        }
        for (Process p : startWithoutLauncher(device, key, Map.of(RunCommand.REUSE_DEVICE_PROPERTY, "true"), "ring")) {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), output);
        }
    }

    /** Copies the process's output lines into {@code lines} as they come. */
    private static void collect(Process process, List<String> lines) {
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                reader.lines().forEach(lines::add);
            } catch (IOException | java.io.UncheckedIOException ended) {
                // the process was killed
            }
        });
    }

    /** Two rank processes started as mpirun or srun would: the job's variables, no launcher of ours. */
    private List<Process> startWithoutLauncher(Path device, long key, Map<String, String> properties, String... args)
            throws IOException {
        List<Process> ranks = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            ProcessBuilder builder = new ProcessBuilder(ProcessLauncher.command(job(2, Optional.empty(), false, args)))
                    .redirectErrorStream(true);
            Map<String, String> env = builder.environment();
            env.keySet().removeIf(k -> k.startsWith("LOCKSTEP_"));
            env.put(LaunchEnvironment.RANK, Integer.toString(rank));
            env.put(LaunchEnvironment.SIZE, "2");
            env.put(LaunchEnvironment.JOB_KEY, Long.toHexString(key));
            env.put(LaunchEnvironment.DEVICE, device.toString());
            env.put(LaunchEnvironment.PROPERTIES, properties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(java.util.stream.Collectors.joining("\n")));
            Process p = builder.start();
            processes.add(p);
            ranks.add(p);
        }
        return ranks;
    }

    @Test
    void aSymbolicLinkAtTheDevicePathIsRefusedAndItsTargetIsLeftAlone() throws IOException {
        Path victim = shm("victim");
        byte[] zeros = new byte[8 << 20];
        Files.write(victim, zeros);
        Files.setPosixFilePermissions(victim, PosixFilePermissions.fromString("rw-------"));
        Path link = shm("link");
        Files.createSymbolicLink(link, victim);
        Launch l = launch(job(2, Optional.of(link), false, "ring"));
        assertNotEquals(0, l.outcome().exitCode(), l.out());
        assertTrue(l.err().contains("symbolic link"), l.err());
        assertArrayEquals(zeros, Files.readAllBytes(victim), "the file the link points at is not formatted over");
        assertTrue(Files.isSymbolicLink(link), "the link is not removed either");
    }

    @Test
    void aFileAnotherUserMadeAtTheDevicePathIsRefusedAndLeftAlone() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")),
                "skipped: needs root to create a second user (run the tests as root, as CI does)");
        try (SecondUser other = SecondUser.create()) {
            Path trap = shm("trap");
            other.run("umask 0 && head -c 4194304 /dev/zero > " + trap + " && chmod 666 " + trap);
            assertEquals(other.uid(), Files.getAttribute(trap, "unix:uid"));
            Launch l = launch(job(2, Optional.of(trap), false, "ring"));
            assertNotEquals(0, l.outcome().exitCode(), l.out());
            assertTrue(l.err().contains("belongs to user id " + other.uid()), l.err());
            assertArrayEquals(new byte[4 << 20], Files.readAllBytes(trap), "nothing of the job was written into it");
            assertTrue(Files.exists(trap), "another user's file is never removed");
        }
    }
}
