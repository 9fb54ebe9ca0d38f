package org.lockstep.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.LockstepException;

/**
 * The kill -9 trials: the {@link CheckpointWorkload} as launched processes with
 * {@code --restart-on-failure}; each trial kills (SIGKILL) a random rank at a random moment of
 * the run, the launcher restarts it from its own checkpoint while the others go on, and the final
 * results are compared with those of a fault-free run of the same job.
 */
final class RestartSoak {
    static final String WORKLOAD = "org.lockstep.tools/" + CheckpointWorkload.class.getName();

    /**
     * @param processes       ranks of the job
     * @param trials          trials with a kill
     * @param iterations      iterations of the workload
     * @param checkpointEvery its checkpoint interval
     * @param seed            chooses victims and moments
     * @param jvmOptions      options of every rank's JVM
     * @param extraProperties job properties beside the checkpoint ones
     */
    record Settings(int processes, int trials, int iterations, int checkpointEvery, long seed, List<String> jvmOptions,
                    Map<String, String> extraProperties) {
        Settings {
            if (processes < 2 || trials < 0) {
                throw new LockstepException(ErrorClass.ARG, "a soak needs at least 2 processes and no negative trial count, got "
                        + processes + " and " + trials);
            }
            jvmOptions = List.copyOf(jvmOptions);
            extraProperties = Map.copyOf(extraProperties);
        }
    }

    /** How a launch went: its outcome, the results it printed and, for a trial, what was killed. */
    record Launch(ProcessLauncher.Outcome outcome, List<CheckpointWorkload.Result> results, String output, Duration elapsed,
                  Optional<Kill> kill, boolean timedOut) {
    }

    /** A kill: {@code rank} (then at incarnation {@code incarnation}) was sent SIGKILL {@code afterMillis} into the run. */
    record Kill(int rank, int incarnation, long afterMillis) {
    }

    private final Settings settings;
    private final Consumer<String> progress;

    RestartSoak(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /** The reference run, then every trial; the summary's line closes the report. */
    SoakSummary run() {
        // The faster of two: the first run also warms the host's caches, and a reference slower than the
        // trials would draw kill moments after the victim has ended (seen in CI: 6.5 s against 3.3-4.6 s).
        Launch first = faultFree();
        Launch second = faultFree();
        Launch reference = second.elapsed().compareTo(first.elapsed()) < 0 ? second : first;
        progress.accept(String.format(java.util.Locale.ROOT, "reference: %d processes, %d iterations, %d ms (the faster of %d and %d ms), no restart",
                settings.processes(), settings.iterations(), reference.elapsed().toMillis(), first.elapsed().toMillis(),
                second.elapsed().toMillis()));
        SplittableRandom random = new SplittableRandom(settings.seed());
        List<SoakSummary.Trial> trials = new ArrayList<>();
        for (int t = 1; t <= settings.trials(); t++) {
            // Within the first four fifths of a fault-free run, so that the victim is rarely done already.
            long killAt = random.nextLong(Math.max(1, reference.elapsed().toMillis() * 4 / 5));
            int victim = random.nextInt(settings.processes());
            // A trial may take longer than the reference (a restart, a recovery), never this much.
            Duration deadline = reference.elapsed().multipliedBy(10).plusSeconds(60);
            Launch trial = launch(Optional.of(new Kill(victim, 0, killAt)), deadline);
            trials.add(judge(t, reference, trial));
            progress.accept(trials.getLast().line());
        }
        return new SoakSummary(trials);
    }

    /** A fault-free run of the job, which must succeed. */
    private Launch faultFree() {
        Launch reference = launch(Optional.empty(), Duration.ofMinutes(5));
        if (reference.outcome().exitCode() != 0 || reference.results().size() != settings.processes()) {
            throw new LockstepException(ErrorClass.OTHER, "the fault-free reference run failed (exit " + reference.outcome().exitCode()
                    + ", results of " + reference.results().size() + " ranks):\n" + tail(reference.output()));
        }
        return reference;
    }

    private SoakSummary.Trial judge(int number, Launch reference, Launch trial) {
        long lost = trial.results().stream().mapToLong(CheckpointWorkload.Result::lost).sum();
        long duplicated = trial.results().stream().mapToLong(CheckpointWorkload.Result::duplicated).sum();
        String fault = trial.kill().map(k -> k.incarnation() == 0 ? "rank " + k.rank() + " had ended before the kill at " + k.afterMillis() + " ms"
                : "killed rank " + k.rank() + " (incarnation " + k.incarnation() + ") at " + k.afterMillis() + " ms").orElse("no fault");
        String restarts = trial.outcome().restarts().size() + " restart(s)";
        List<String> problems = new ArrayList<>();
        if (trial.timedOut()) {
            problems.add("did not end before its deadline (hung: a lost message or a rank that never came back)");
        } else if (trial.outcome().exitCode() != 0) {
            problems.add("rank " + trial.outcome().firstFailedRank() + " " + ProcessLauncher.describeExit(
                    trial.outcome().exitCodes()[trial.outcome().firstFailedRank()]));
        }
        CheckpointWorkload.compare(reference.results(), trial.results(), settings.processes()).ifPresent(problems::add);
        boolean passed = problems.isEmpty();
        String detail = fault + ", " + restarts + ", " + trial.elapsed().toMillis() + " ms" + (passed ? "" : ": " + String.join("; ", problems)
                + "\n" + tail(trial.output()));
        boolean faulted = trial.kill().map(k -> k.incarnation() > 0).orElse(false);
        return new SoakSummary.Trial(number, passed, faulted, lost, duplicated, detail);
    }

    /** Runs the job once; with {@code kill}, sends SIGKILL to its rank {@code afterMillis} into the run. */
    Launch launch(Optional<Kill> kill, Duration deadline) {
        Map<String, String> properties = new java.util.LinkedHashMap<>(settings.extraProperties());
        properties.put(Checkpoints.ENABLED_PROPERTY, "true");
        properties.put(Checkpoints.RESTART_ON_FAILURE_PROPERTY, "true");
        ProcessLauncher.Job job = new ProcessLauncher.Job(settings.processes(), WORKLOAD,
                List.of(Integer.toString(settings.iterations()), Integer.toString(settings.checkpointEvery())), Optional.empty(),
                properties, settings.jvmOptions(), List.of(), false, Duration.ofSeconds(10), false, kill.isPresent() ? 2 : 0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        AtomicReferenceArray<Process> current = new AtomicReferenceArray<>(settings.processes());
        AtomicReferenceArray<Integer> incarnations = new AtomicReferenceArray<>(settings.processes());
        AtomicReference<Kill> done = new AtomicReference<>();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon()
                .name("lockstep-soak-timer").unstarted(r));
        java.util.concurrent.atomic.AtomicBoolean timedOut = new java.util.concurrent.atomic.AtomicBoolean();
        long start = System.nanoTime();
        ProcessLauncher.Outcome outcome;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            ProcessLauncher launcher = new ProcessLauncher(out, out);
            kill.ifPresent(k -> timer.schedule(() -> {
                Process p = current.get(k.rank());
                if (p != null && p.isAlive()) {
                    p.destroyForcibly(); // SIGKILL on Linux: kill -9
                    done.set(new Kill(k.rank(), incarnations.get(k.rank()), k.afterMillis()));
                } else {
                    done.set(new Kill(k.rank(), 0, k.afterMillis()));
                }
            }, k.afterMillis(), TimeUnit.MILLISECONDS));
            timer.schedule(() -> {
                timedOut.set(true);
                launcher.cancel();
            }, deadline.toMillis(), TimeUnit.MILLISECONDS);
            outcome = launcher.run(job, (rank, incarnation, process) -> {
                incarnations.set(rank, incarnation);
                current.set(rank, process);
            });
        } finally {
            timer.shutdownNow();
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        String output = bytes.toString(StandardCharsets.UTF_8);
        return new Launch(outcome, CheckpointWorkload.Result.parseAll(output, settings.processes()), output, elapsed,
                kill.map(k -> done.get() == null ? new Kill(k.rank(), 0, k.afterMillis()) : done.get()), timedOut.get());
    }

    static String tail(String output) {
        String[] lines = output.split("\n");
        int from = Math.max(0, lines.length - 15);
        StringBuilder b = new StringBuilder();
        for (int i = from; i < lines.length; i++) {
            b.append("    | ").append(lines[i]).append('\n');
        }
        return b.toString();
    }
}
