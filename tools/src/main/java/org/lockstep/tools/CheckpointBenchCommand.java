package org.lockstep.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.Communicator;
import org.lockstep.api.Datatype;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.Request;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lockstep bench checkpoint}: the cost of independent checkpoints beside the coordinated
 * alternative seed 001 argues against, in one run, as ratios.
 *
 * <p>Part 1, ranks as threads over a /dev/shm device: a pipelined ring (each rank keeps
 * {@code window} messages in flight to its right neighbour) of a fixed number of steps, run three
 * ways: without checkpoints (message log off); with independent checkpoints (log on, rank r
 * checkpoints every {@code every} steps at its own offset, nobody waits for anybody); and
 * coordinated (log off, every {@code every} steps all ranks stop at a barrier, drain the messages
 * in flight to them, dump state and drained messages to a device of the same kind and persist it,
 * and meet at a second barrier). Reported per registered state size: the run time of each, and the
 * time the application is stopped per checkpoint (independent: the rank's own checkpoint call;
 * coordinated: barrier to barrier, the whole world stopped).
 *
 * <p>Part 2, launched processes with restart on failure: the time from killing a rank to its first
 * received message after its restart (the others keep running), beside a global rollback — every
 * rank killed at once and restarted, the coordinated scheme's recovery — to the last rank's first
 * message.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Independent checkpoints (the device as the message log) against coordinated ones (barrier, drain "
                + "in-flight messages, dump): run time and stop time per checkpoint by state size, in threads; then restart "
                + "time of one killed process against a global rollback, with launched processes.")
final class CheckpointBenchCommand implements Callable<Integer> {
    static final int MESSAGE_BYTES = 1024;

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--ranks"}, paramLabel = "N", defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--steps", paramLabel = "N", defaultValue = "3000", description = "Ring steps per run (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--every", paramLabel = "N", defaultValue = "300", description = "Steps between checkpoints (default: ${DEFAULT-VALUE}).")
    int every;

    @Option(names = "--window", paramLabel = "N", defaultValue = "8", description = "Messages in flight per channel (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--state-sizes", paramLabel = "SIZES", defaultValue = "4k,256k,2m", converter = SizeList.Converter.class,
            description = "Registered state per rank (default: ${DEFAULT-VALUE}).")
    SizeList stateSizes;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "3",
            description = "Runs of each kind per state size, interleaved; the row shows medians (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--log-throughput", paramLabel = "MESSAGES", arity = "0..1", fallbackValue = "200000",
            description = "First run the transport's own benchmark (org.lockstep.pcie's CheckpointBenchmark, in a child JVM): "
                    + "message log on/off throughput with MESSAGES per round, checkpoint time by state size, restart with replay.")
    Integer logThroughputMessages;

    @Option(names = "--log-sizes", paramLabel = "SIZES", defaultValue = "64,4k", converter = SizeList.Converter.class,
            description = "Message sizes of the processes' log on/off runs of --log-throughput (default: ${DEFAULT-VALUE}).")
    SizeList logSizes;

    @Option(names = "--restart-trials", paramLabel = "N", defaultValue = "2",
            description = "Kills of each kind in part 2 (0 skips it; default: ${DEFAULT-VALUE}).")
    int restartTrials;

    @Option(names = "--aot-cache", paramLabel = "DIR", arity = "0..1", fallbackValue = "",
            description = "Start the launched processes' JVMs from an ahead-of-time cache in DIR, as lockstep run --aot-cache "
                    + "(default DIR: ~/.cache/lockstep/aot); the first job of each kind makes it.")
    String aotCache;

    @Override
    public Integer call() {
        if (ranks < 2 || steps < 1 || every < 1 || window < 1) {
            throw new ParameterException(spec.commandLine(), "--ranks must be at least 2; --steps, --every and --window positive");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (logThroughputMessages != null) {
            for (long bytes : logSizes.sizes()) {
                processLogThroughput(out, logThroughputMessages, Math.toIntExact(bytes));
            }
            transportBenchmark(out, logThroughputMessages);
        }
        out.printf(Locale.ROOT, "# checkpoint bench: %d ranks (threads, /dev/shm device), %d steps of %d B, %d in flight per channel, "
                + "a checkpoint every %d steps%n", ranks, steps, MESSAGE_BYTES, window, every);
        out.println("# medians of " + Math.max(1, repeat) + " interleaved runs each");
        out.println("# state      none ms   independent ms   coordinated ms   indep/none   coord/none   stop/ckpt indep us   "
                + "stop/ckpt coord us   coord/indep");
        warmUp();
        for (long size : stateSizes.sizes()) {
            List<Timing> nones = new ArrayList<>();
            List<Timing> independents = new ArrayList<>();
            List<Timing> coordinateds = new ArrayList<>();
            for (int r = 0; r < Math.max(1, repeat); r++) {
                nones.add(pipeline(Mode.NONE, size));
                independents.add(pipeline(Mode.INDEPENDENT, size));
                coordinateds.add(pipeline(Mode.COORDINATED, size));
            }
            Timing none = median(nones);
            Timing independent = median(independents);
            Timing coordinated = median(coordinateds);
            out.printf(Locale.ROOT, "%-10s %9.1f %16.1f %16.1f %12.2f %12.2f %20.1f %20.1f %13.2f%n", humanSize(size),
                    none.millis(), independent.millis(), coordinated.millis(), independent.millis() / none.millis(),
                    coordinated.millis() / none.millis(), independent.stopMicros(), coordinated.stopMicros(),
                    coordinated.stopMicros() / independent.stopMicros());
            out.flush();
        }
        if (restartTrials > 0) {
            restarts(out);
        }
        out.flush();
        return 0;
    }

    /**
     * Message log on/off with two launched processes over /dev/shm: one job per run (fresh JVMs, so
     * JIT luck is part of the spread), the kinds interleaved; the medians and the paired ratio.
     */
    private void processLogThroughput(PrintWriter out, int messages, int bytes) {
        int rounds = Math.max(3, repeat);
        out.printf(Locale.ROOT, "# message log on/off, 2 processes over /dev/shm: %d messages of %d B per run, %d in flight, receiver "
                + "checkpoints every %d with the log on; %d runs of each kind, interleaved. 'off, indirect': log off with the "
                + "inline threshold below %d B, so that the messages travel through the heap as they do with the log%n", messages,
                bytes, window, LOG_CHECKPOINT_EVERY, rounds, bytes);
        for (boolean preposted : new boolean[] {true, false}) {
            String receives = preposted ? "receives posted ahead (expected)" : "one receive at a time (mostly unexpected)";
            double[] off = new double[rounds];
            double[] offIndirect = new double[rounds];
            double[] on = new double[rounds];
            double[] paired = new double[rounds];
            double[] pairedIndirect = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                off[r] = launchLogThroughput(messages, bytes, false, false, preposted);
                offIndirect[r] = launchLogThroughput(messages, bytes, false, true, preposted);
                on[r] = launchLogThroughput(messages, bytes, true, false, preposted);
                paired[r] = on[r] / off[r];
                pairedIndirect[r] = on[r] / offIndirect[r];
                out.printf(Locale.ROOT, "%s, run %d: log off %.0f msg/s, off indirect %.0f msg/s, log on %.0f msg/s; on/off %.3f, "
                        + "on/off-indirect %.3f%n", receives, r + 1, off[r], offIndirect[r], on[r], paired[r], pairedIndirect[r]);
                out.flush();
            }
            out.printf(Locale.ROOT, "processes, %d B, %s (medians): log off %.0f msg/s, off indirect %.0f msg/s, log on %.0f msg/s; "
                            + "on/off = %.3f, on/off-indirect = %.3f (paired medians %.3f, %.3f)%n", bytes, receives, medianOf(off),
                    medianOf(offIndirect), medianOf(on), medianOf(on) / medianOf(off), medianOf(on) / medianOf(offIndirect),
                    medianOf(paired), medianOf(pairedIndirect));
            out.flush();
        }
    }

    static final int LOG_CHECKPOINT_EVERY = 1000;

    private double launchLogThroughput(int messages, int bytes, boolean log, boolean indirect, boolean preposted) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (log) {
            properties.put(Checkpoints.ENABLED_PROPERTY, "true");
        }
        if (indirect) {
            properties.put("lockstep.mailbox.inlineThreshold", Integer.toString(bytes / 2));
        }
        properties.put("lockstep.mailbox.asyncSlots", "0"); // the log uses pair mailboxes only: the same rings either way
        ProcessLauncher.Job job = new ProcessLauncher.Job(2, "org.lockstep.tools/" + LogThroughputProgram.class.getName(),
                List.of(Integer.toString(messages), Integer.toString(bytes), Integer.toString(window),
                        Integer.toString(LOG_CHECKPOINT_EVERY), Boolean.toString(log), Boolean.toString(preposted)), Optional.empty(), properties,
                List.of("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"), List.of(), false, Duration.ofSeconds(10), false, 0);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        ProcessLauncher.Outcome outcome;
        try (PrintStream ps = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            outcome = launcher(ps).run(job, (rank, incarnation, process) -> { });
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        Matcher m = Pattern.compile(Pattern.quote(LogThroughputProgram.RESULT) + "(\\d+)").matcher(output);
        if (outcome.exitCode() != 0 || !m.find()) {
            throw new LockstepException(ErrorClass.OTHER, "log throughput job (log " + (log ? "on" : "off") + ") failed:\n"
                    + RestartSoak.tail(output));
        }
        return Long.parseLong(m.group(1));
    }

    private ProcessLauncher launcher(PrintStream output) {
        ProcessLauncher launcher = new ProcessLauncher(output, output);
        if (aotCache != null) {
            launcher.aotCache(aotCache.isEmpty() ? RankStartCache.defaultDirectory() : java.nio.file.Path.of(aotCache));
        }
        return launcher;
    }

    private static double medianOf(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The transport's benchmark lives in a provider module that exports nothing: it runs as its own main. */
    private static void transportBenchmark(PrintWriter out, int messages) {
        List<String> command = new ArrayList<>(List.of(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch", "--enable-native-access=org.lockstep.pcie,org.lockstep.emulated",
                "-p", System.getProperty("jdk.module.path", ""), "--add-modules", "ALL-MODULE-PATH",
                "-m", "org.lockstep.pcie/org.lockstep.pcie.bench.CheckpointBenchmark", Integer.toString(messages), "5", "64",
                // the device a user's processes share (the emulated one pays for its power-loss bookkeeping on every persist)
                "lockstep.device=mapped", "lockstep.device.path=/dev/shm/lockstep-checkpoint-bench-" + ProcessHandle.current().pid(),
                "lockstep.device.option.deleteOnClose=true"));
        out.println("# the transport's benchmark, threads over a /dev/shm device (message log on/off, checkpoint time by state size, "
                + "restart with replay):");
        out.flush();
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.println(line);
                    out.flush();
                }
            }
            if (p.waitFor() != 0) {
                throw new LockstepException(ErrorClass.OTHER, "the transport's benchmark exited with " + p.exitValue());
            }
        } catch (java.io.IOException e) {
            throw new LockstepException(ErrorClass.OTHER, "cannot run the transport's benchmark: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockstepException(ErrorClass.OTHER, "interrupted in the transport's benchmark");
        }
    }

    /** Medians of the run times and of the stop times, separately (shared machines: single runs are noise). */
    private static Timing median(List<Timing> runs) {
        double[] millis = runs.stream().mapToDouble(Timing::millis).sorted().toArray();
        double[] stops = runs.stream().mapToDouble(Timing::stopMicros).sorted().toArray();
        return new Timing(millis[millis.length / 2], stops[stops.length / 2]);
    }

    private static String humanSize(long bytes) {
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes >= 1024 && bytes % 1024 == 0 ? (bytes >> 10) + " KiB" : bytes + " B";
    }

    private void warmUp() {
        int saved = steps;
        steps = Math.min(steps, 500);
        try {
            for (Mode m : Mode.values()) {
                pipeline(m, 4096);
            }
        } finally {
            steps = saved;
        }
    }

    enum Mode { NONE, INDEPENDENT, COORDINATED }

    /** A run's wall time and the mean time the application was stopped per checkpoint. */
    record Timing(double millis, double stopMicros) {
    }

    private static final AtomicLong PIPELINE_RUNS = new AtomicLong();

    private Timing pipeline(Mode mode, long stateBytes) {
        // Both schemes over /dev/shm files, as launched processes would share them (the emulated device would
        // charge its power-loss bookkeeping to every persist of the log).
        String file = "/dev/shm/lockstep-checkpoint-bench-" + ProcessHandle.current().pid() + "-" + PIPELINE_RUNS.incrementAndGet();
        JobOptions options = JobOptions.ofRanks(ranks).with("lockstep.device", "mapped").with("lockstep.device.path", file)
                .with("lockstep.device.option.deleteOnClose", "true");
        if (mode == Mode.INDEPENDENT) {
            options = options.with(Checkpoints.ENABLED_PROPERTY, "true")
                    .with(Checkpoints.STATE_BYTES_PROPERTY, Long.toString(stateBytes + (1L << 20)));
        }
        AtomicLong stoppedNanos = new AtomicLong();
        AtomicLong checkpoints = new AtomicLong();
        Map<Integer, ExternalMemory> dumps = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        Lockstep.provider("mailbox").runInThreads(options, world -> {
            ExternalMemory dump = mode == Mode.COORDINATED
                    ? DeviceProviders.open(new DeviceSpec("mapped", stateBytes + (long) window * MESSAGE_BYTES + (1L << 16),
                    DeviceSpec.DEFAULT_BLOCK_SIZE, Optional.of(file + "-dump-" + world.rank()), Map.of("deleteOnClose", "true"))) : null;
            try {
                if (dump != null) {
                    dumps.put(world.rank(), dump);
                }
                pipelineRank(world, mode, stateBytes, dump, stoppedNanos, checkpoints);
            } finally {
                if (dump != null) {
                    dump.close();
                }
            }
        });
        double millis = (System.nanoTime() - start) / 1e6;
        long n = checkpoints.get();
        return new Timing(millis, n == 0 ? 0 : stoppedNanos.get() / 1e3 / n);
    }

    /**
     * One rank of the pipelined ring: at step i it sends message i to the right and receives
     * message i - window from the left, so {@code window} messages per channel are always in flight.
     */
    private void pipelineRank(Communicator world, Mode mode, long stateBytes, ExternalMemory dump, AtomicLong stopped, AtomicLong count) {
        int n = world.size();
        int me = world.rank();
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        MemorySegment state = MemorySegment.ofArray(new byte[(int) stateBytes]);
        Checkpoints cp = world.checkpoints();
        if (mode == Mode.INDEPENDENT) {
            cp.register("bench-state", state);
            cp.restore();
        }
        MemorySegment[] out = new MemorySegment[window];
        Request[] sends = new Request[window];
        for (int k = 0; k < window; k++) {
            out[k] = MemorySegment.ofArray(new byte[MESSAGE_BYTES]);
        }
        MemorySegment in = MemorySegment.ofArray(new byte[MESSAGE_BYTES]);
        // Messages a coordinated checkpoint drained from the channel, consumed in place of the receives they replace.
        java.util.ArrayDeque<MemorySegment> drained = new java.util.ArrayDeque<>();
        long offset = (long) me * every / n;
        long total = steps + (long) window;
        for (long i = 0; i < total; i++) {
            int slot = (int) (i % window);
            if (i < steps) {
                if (sends[slot] != null) {
                    sends[slot].await();
                }
                out[slot].set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i * n + me);
                sends[slot] = world.isend(out[slot], MESSAGE_BYTES, Datatype.BYTE, right, 1);
            }
            if (i >= window) {
                MemorySegment m = drained.isEmpty() ? in : drained.removeFirst();
                if (m == in) {
                    world.recv(in, MESSAGE_BYTES, Datatype.BYTE, left, 1);
                }
                long j = i - window;
                state.set(ValueLayout.JAVA_LONG_UNALIGNED, (j * Long.BYTES) % (stateBytes - Long.BYTES + 1),
                        m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            }
            if (i <= window || i >= steps) {
                continue;
            }
            if (mode == Mode.INDEPENDENT && (i + offset) % every == 0) {
                // Quiet point of this rank only: its sends placed; its in-flight messages stay in the log.
                long t0 = System.nanoTime();
                Request.waitAll(java.util.Arrays.stream(sends).filter(java.util.Objects::nonNull).toArray(Request[]::new));
                cp.checkpoint();
                stopped.addAndGet(System.nanoTime() - t0);
                count.incrementAndGet();
            } else if (mode == Mode.COORDINATED && i % every == 0) {
                long t0 = System.nanoTime();
                world.barrier();
                // Drain the channel: the messages in flight to this rank are received now and dumped with the state.
                long at = 0;
                dump.write(at, state, 0, stateBytes);
                at += stateBytes;
                for (int k = 0; k < window - drained.size(); k++) {
                    MemorySegment m = MemorySegment.ofArray(new byte[MESSAGE_BYTES]);
                    world.recv(m, MESSAGE_BYTES, Datatype.BYTE, left, 1);
                    drained.addLast(m);
                }
                for (MemorySegment m : drained) {
                    dump.write(at, m, 0, MESSAGE_BYTES);
                    at += MESSAGE_BYTES;
                }
                dump.persist(0, at);
                world.barrier();
                stopped.addAndGet(System.nanoTime() - t0);
                count.incrementAndGet();
            }
        }
        Request.waitAll(java.util.Arrays.stream(sends).filter(java.util.Objects::nonNull).toArray(Request[]::new));
    }

    // ------------------------------------------------------------------ part 2: restarts

    private static final Pattern FIRST_AFTER_RESTART = Pattern.compile("\\[(\\d+)] bench-restart rank=(\\d+) incarnation=(\\d+) "
            + "first-message-at=(\\d+)");

    private void restarts(PrintWriter out) {
        out.printf(Locale.ROOT, "# restart: %d launched processes with --restart-on-failure; kill -9 a third of the way through%n", ranks);
        Duration reference = launchRestartJob(false, false).elapsed();
        out.printf(Locale.ROOT, "# fault-free run: %d ms%n", reference.toMillis());
        out.println("# kind                    kill -> first message ms   kill -> restarted ms   (per trial)");
        List<Double> single = new ArrayList<>();
        List<Double> global = new ArrayList<>();
        for (int t = 0; t < restartTrials; t++) {
            RestartTiming s = launchRestartJob(true, false).timing();
            RestartTiming g = launchRestartJob(true, true).timing();
            out.printf(Locale.ROOT, "one rank (independent)    %26.1f %22.1f%n", s.toFirstMessageMillis(), s.toRestartMillis());
            out.printf(Locale.ROOT, "all ranks (global)        %26.1f %22.1f%n", g.toFirstMessageMillis(), g.toRestartMillis());
            single.add(s.toFirstMessageMillis());
            global.add(g.toFirstMessageMillis());
            out.flush();
        }
        double s = single.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double g = global.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        out.printf(Locale.ROOT, "restart to first message: one rank %.1f ms, global rollback %.1f ms, global/one %.2f%n", s, g, g / s);
    }

    /** Kill time to restart and to first message after restart (of the last restarted rank). */
    record RestartTiming(double toFirstMessageMillis, double toRestartMillis) {
    }

    record RestartLaunch(Duration elapsed, RestartTiming timing) {
    }

    private RestartLaunch launchRestartJob(boolean kill, boolean killAll) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(Checkpoints.ENABLED_PROPERTY, "true");
        properties.put(Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        ProcessLauncher.Job job = new ProcessLauncher.Job(ranks, "org.lockstep.tools/" + RestartBenchProgram.class.getName(),
                List.of(Integer.toString(steps), Integer.toString(every)), Optional.empty(), properties,
                List.of("-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch"), List.of(), false, Duration.ofSeconds(10), false,
                killAll ? ranks : 1);
        AtomicReferenceArray<Process> current = new AtomicReferenceArray<>(ranks);
        AtomicLong killedAt = new AtomicLong();
        String trigger = "[1] " + RestartBenchProgram.RUNNING + "1";
        StringBuffer output = new StringBuffer();
        long start = System.nanoTime();
        ProcessLauncher.Outcome outcome;
        try (PrintStream ps = new PrintStream(new LineWatcher(line -> {
            output.append(line).append('\n');
            if (kill && line.equals(trigger) && killedAt.compareAndSet(0, System.nanoTime())) {
                for (int r = killAll ? 0 : 1; r < (killAll ? ranks : 2); r++) {
                    current.get(r).destroyForcibly(); // SIGKILL
                }
            }
        }), true, StandardCharsets.UTF_8)) {
            outcome = launcher(ps).run(job, (rank, incarnation, process) -> current.set(rank, process));
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        if (outcome.exitCode() != 0) {
            throw new LockstepException(ErrorClass.OTHER, "restart bench job failed:\n" + RestartSoak.tail(output.toString()));
        }
        if (!kill) {
            return new RestartLaunch(elapsed, null);
        }
        long lastFirst = 0;
        Matcher m = FIRST_AFTER_RESTART.matcher(output);
        int found = 0;
        while (m.find()) {
            lastFirst = Math.max(lastFirst, Long.parseLong(m.group(4)));
            found++;
        }
        if (killedAt.get() == 0 || found < (killAll ? ranks : 1)) {
            throw new LockstepException(ErrorClass.OTHER, "no restart to time (" + found + " restarted ranks reported):\n"
                    + RestartSoak.tail(output.toString()));
        }
        long lastRestart = outcome.restarts().stream().mapToLong(ProcessLauncher.Restart::restartedAtNanos).max().orElseThrow();
        return new RestartLaunch(elapsed, new RestartTiming((lastFirst - killedAt.get()) / 1e6, (lastRestart - killedAt.get()) / 1e6));
    }

    /** Hands every complete line written to it to a consumer (the launcher's output, watched for the kill trigger). */
    private static final class LineWatcher extends java.io.OutputStream {
        private final java.util.function.Consumer<String> lines;
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();

        LineWatcher(java.util.function.Consumer<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.accept(current.toString(StandardCharsets.UTF_8));
                current.reset();
            } else {
                current.write(b);
            }
        }
    }
}
