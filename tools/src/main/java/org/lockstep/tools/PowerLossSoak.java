package org.lockstep.tools;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.lockstep.api.Checkpoints;
import org.lockstep.api.ErrorClass;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.DeviceRouting;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.device.PowerCycledDevice;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.ExternalMemory;

/**
 * The power-loss trials, in one JVM: the {@link CheckpointWorkload} as threads of the mailbox
 * transport over an emulated device with checkpoints on. Each trial arms a power loss at a random
 * mutating access of the device (chosen among the accesses a fault-free run makes): at that access
 * every rank loses power together and unpersisted writes are lost (torn at 8-byte words if asked).
 * The device is powered on and the same job runs again on it: each rank restarts from its own
 * checkpoint, and the final results are compared with the fault-free run's.
 *
 * <p>The job's device is kept across the two runs by a {@link PowerCycledDevice}, which hands the
 * transport the same emulated device every time it opens one.
 */
final class PowerLossSoak {
    /**
     * @param ranks           ranks of the job
     * @param trials          trials with a power loss
     * @param iterations      iterations of the workload
     * @param checkpointEvery its checkpoint interval
     * @param seed            chooses crash points and torn words
     * @param torn            whether unpersisted data is lost word by word rather than line by line
     * @param extraProperties job properties beside the checkpoint ones
     */
    record Settings(int ranks, int trials, int iterations, int checkpointEvery, long seed, boolean torn,
                    Map<String, String> extraProperties) {
        Settings {
            if (ranks < 2 || trials < 0) {
                throw new LockstepException(ErrorClass.ARG, "a soak needs at least 2 ranks and no negative trial count, got "
                        + ranks + " and " + trials);
            }
            extraProperties = Map.copyOf(extraProperties);
        }
    }

    /**
     * Job property that makes the mailbox transport's world of threads resume the job its device
     * holds (every rank its next incarnation, from its own checkpoint): org.lockstep.pcie's
     * {@code MailboxOptions.RECOVER}, named here because the command does not depend on providers.
     */
    static final String RECOVER_PROPERTY = "lockstep.checkpoint.recover";

    /** How long the ranks of a stopped run get to notice that the power is off. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final Settings settings;
    private final Consumer<String> progress;
    private final LockstepProvider provider = Lockstep.provider("mailbox");
    private Duration deadline;

    PowerLossSoak(Settings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /** What one run of the job gave: results per rank, or the failure that ended it. */
    private record Run(List<CheckpointWorkload.Result> results, Optional<Throwable> failure, Duration elapsed) {
    }

    private JobOptions options(boolean recover) {
        JobOptions options = JobOptions.ofRanks(settings.ranks()).with(Checkpoints.ENABLED_PROPERTY, "true");
        if (recover) {
            options = options.with(RECOVER_PROPERTY, "true");
        }
        for (Map.Entry<String, String> e : settings.extraProperties().entrySet()) {
            options = options.with(e.getKey(), e.getValue());
        }
        return options;
    }

    /**
     * Runs the job once on {@code device}. A run that has not ended by its deadline (a message lost
     * for good leaves ranks waiting) is stopped by cutting the device's power, and reported as hung.
     */
    private Run runOn(PowerCycledDevice device, boolean recover, Duration deadline) {
        CheckpointWorkload workload = new CheckpointWorkload(settings.iterations(), settings.checkpointEvery());
        Map<Integer, CheckpointWorkload.Result> results = new ConcurrentHashMap<>();
        MessagingTarget target = MessagingTarget.of(provider, Capabilities.of(settings.ranks()).withDeviceRouting(DeviceRouting.MAILBOX))
                .withOptions(o -> options(recover));
        JobOptions options = device.route(target).jobOptions(settings.ranks());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        Thread job = Thread.ofPlatform().daemon().name("lockstep-soak-job").start(() -> {
            try {
                provider.runInThreads(options, world -> results.put(world.rank(), workload.run(world)));
            } catch (RuntimeException | Error e) {
                failure.set(e);
            }
        });
        try {
            if (!job.join(deadline)) {
                device.crash().powerLoss(CrashInjectable.PowerLoss.WHOLE_LINES);
                job.join(STOP_GRACE);
                failure.set(new LockstepException(ErrorClass.OTHER, "hung: the run had not ended after " + deadline.toSeconds()
                        + " s (stopped by cutting the power)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockstepException(ErrorClass.OTHER, "power-loss soak interrupted");
        }
        return new Run(results.values().stream().sorted(Comparator.comparingInt(CheckpointWorkload.Result::rank)).toList(),
                Optional.ofNullable(failure.get()), Duration.ofNanos(System.nanoTime() - start));
    }

    /** A failed run's exception with what it carries: each rank's failure (suppressed) and causes, one line each. */
    static String describe(Throwable t) {
        StringBuilder b = new StringBuilder(String.valueOf(t.getMessage()));
        for (Throwable s : t.getSuppressed()) {
            b.append("\n      also ").append(s);
        }
        for (Throwable c = t.getCause(); c != null && c != t; c = c.getCause()) {
            b.append("\n      caused by ").append(c);
        }
        return b.toString();
    }

    SoakSummary run() {
        long accesses;
        Duration referenceElapsed;
        List<CheckpointWorkload.Result> reference;
        try (PowerCycledDevice device = new PowerCycledDevice()) {
            Run r = runOn(device, false, Duration.ofMinutes(10));
            if (r.failure().isPresent() || r.results().size() != settings.ranks()) {
                throw new LockstepException(ErrorClass.OTHER, "the fault-free reference run failed: " + r.failure().map(Throwable::toString)
                        .orElse("results of " + r.results().size() + " ranks"), r.failure().orElse(null));
            }
            reference = r.results();
            referenceElapsed = r.elapsed();
            accesses = device.crash().mutatingAccesses();
            progress.accept(String.format(Locale.ROOT, "reference: %d ranks, %d iterations, %d mutating device accesses, %d ms",
                    settings.ranks(), settings.iterations(), accesses, r.elapsed().toMillis()));
        }
        // A trial may take longer than the reference (recovery, replay), never this much.
        deadline = referenceElapsed.multipliedBy(10).plusSeconds(30);
        SplittableRandom random = new SplittableRandom(settings.seed());
        List<SoakSummary.Trial> trials = new ArrayList<>();
        for (int t = 1; t <= settings.trials(); t++) {
            long crashAt = 1 + random.nextLong(accesses);
            CrashInjectable.PowerLoss loss = settings.torn() ? CrashInjectable.PowerLoss.torn(random.nextLong())
                    : CrashInjectable.PowerLoss.WHOLE_LINES;
            trials.add(trial(t, reference, crashAt, loss));
            progress.accept(trials.getLast().line());
        }
        return new SoakSummary(trials);
    }

    private SoakSummary.Trial trial(int number, List<CheckpointWorkload.Result> reference, long crashAt, CrashInjectable.PowerLoss loss) {
        try (PowerCycledDevice device = new PowerCycledDevice()) {
            // The device exists only once the transport opens it: armed at its first open, so the
            // countdown runs over the same accesses as the reference's count.
            device.armOnOpen(crashAt, loss);
            Run first = runOn(device, false, deadline);
            boolean struck = device.device().isPresent() && device.crash().poweredOff();
            List<String> problems = new ArrayList<>();
            Run finished = first;
            first.failure().filter(f -> String.valueOf(f.getMessage()).startsWith("hung")).ifPresent(f -> problems.add("before the power loss: " + f.getMessage()));
            if (struck) {
                device.crash().powerOn();
                finished = runOn(device, true, deadline);
                finished.failure().ifPresent(f -> problems.add("the run after power loss failed: " + describe(f)));
            } else if (first.failure().isPresent()) {
                problems.add("the run failed without a power loss: " + describe(first.failure().get()));
            }
            CheckpointWorkload.compare(reference, finished.results(), settings.ranks()).ifPresent(problems::add);
            long lost = finished.results().stream().mapToLong(CheckpointWorkload.Result::lost).sum();
            long duplicated = finished.results().stream().mapToLong(CheckpointWorkload.Result::duplicated).sum();
            String fault = struck ? "power lost at mutating access " + crashAt + (loss.torn() ? " (torn words)" : "")
                    + ", ranks resumed from epochs " + finished.results().stream().map(r -> Long.toString(r.resumedFrom())).toList()
                    : "the run ended before access " + crashAt;
            String detail = fault + (problems.isEmpty() ? "" : ": " + String.join("; ", problems));
            return new SoakSummary.Trial(number, problems.isEmpty(), struck, lost, duplicated, detail);
        }
    }
}
