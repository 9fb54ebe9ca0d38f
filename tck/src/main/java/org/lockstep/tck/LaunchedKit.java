package org.lockstep.tck;

import java.io.IOException;
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
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;
import org.lockstep.conformance.run.LaunchPlan;
import org.lockstep.conformance.run.LaunchedRules;
import org.lockstep.conformance.run.OutcomeLog;
import org.lockstep.conformance.run.ProcessJob;

/**
 * The kit under a launcher ({@code lockstep tck --launcher mpirun.openmpi}): the rules run in a job
 * of rank processes that the launcher starts ({@link LaunchedRules}), one rank per process, on a
 * provider such as {@code mpi} that joins a launcher's world. One job runs the rules in order and
 * logs each outcome; when a job ends inside a rule (a world passed its deadline, or the processes
 * went different ways), that rule fails with the end of the job's output, and a new job goes on
 * with the next rule. Each job's device files (those named by its job key) are removed after it.
 */
final class LaunchedKit {
    /** The rank processes' JVM: small and quick to start, since several share the machine. */
    private static final List<String> RANK_JVM = List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-Xss2m");
    private static final long POLL_MILLIS = 200;
    /** Lines of a job's output quoted for the rule it ended in. */
    private static final int TAIL_LINES = 80;
    /** A job's start (JVMs, MPI_Init) counts against its first rule. */
    private static final Duration START_ALLOWANCE = Duration.ofSeconds(90);

    private LaunchedKit() {
    }

    /**
     * Runs {@code rules} on {@code ranks} rank processes started by {@code launcher}; each outcome goes to
     * {@code outcomes} as it is known.
     *
     * @throws KitLauncher.LaunchFailed if the launcher cannot be run or its first job never reached a rule
     */
    static void run(KitLauncher launcher, LaunchPlan plan, int ranks, Function<Rule, Duration> ruleLimit,
                    Consumer<RuleOutcome> outcomes, Consumer<String> progress) {
        boolean openMpi = launcher.isOpenMpi();
        List<LaunchPlan.Step> remaining = plan.rules();
        int jobs = 0;
        while (!remaining.isEmpty()) {
            jobs++;
            progress.accept("  job " + jobs + ": " + launcher.command() + " -np " + ranks + " for " + remaining.size() + " rule(s)"
                    + (openMpi ? " (Open MPI)" : ""));
            int done = runJob(launcher, openMpi, plan.withRules(remaining), ranks, ruleLimit, outcomes, jobs == 1);
            remaining = remaining.subList(done, remaining.size());
        }
    }

    /** One job over {@code plan}'s rules; returns how many of them it settled (at least one). */
    private static int runJob(KitLauncher launcher, boolean openMpi, LaunchPlan plan, int ranks, Function<Rule, Duration> ruleLimit,
                              Consumer<RuleOutcome> outcomes, boolean first) {
        Path directory;
        try {
            directory = Files.createTempDirectory("lockstep-tck-launched-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the kit's job directory", e);
        }
        Path planFile = directory.resolve("plan");
        Path outputFile = directory.resolve("output");
        OutcomeLog log = new OutcomeLog(directory.resolve("outcomes"));
        plan.write(planFile);
        String jobKey = Long.toHexString(new SecureRandom().nextLong() & Long.MAX_VALUE);
        List<String> jvm = new ArrayList<>(RANK_JVM);
        jvm.add("-XX:ErrorFile=" + directory.resolve("hs_err_pid%p.log")); // a crashed rank's log stays out of the working directory
        List<String> command = launcher.command(openMpi, ranks, List.of("LOCKSTEP_JOB_KEY"), ProcessJob.javaCommand(jvm, LaunchedRules.class,
                List.of(planFile.toString(), directory.resolve("outcomes").toString())));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(outputFile.toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("LOCKSTEP_"));
        env.put("LOCKSTEP_JOB_KEY", jobKey);
        if ("root".equals(System.getProperty("user.name"))) {
            env.put("OMPI_ALLOW_RUN_AS_ROOT", "1");
            env.put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        }
        Process job;
        try {
            job = builder.start();
        } catch (IOException e) {
            throw new KitLauncher.LaunchFailed("cannot start " + command.getFirst() + ": " + e.getMessage());
        }
        int reported = 0;
        String stopped = null;
        try {
            String running = null;
            long since = System.nanoTime();
            while (job.isAlive()) {
                OutcomeLog.Entries e = log.read();
                reported = report(e, reported, outcomes);
                String now = e.unfinished().orElse(null);
                if (now != null && !now.equals(running)) {
                    running = now;
                    since = System.nanoTime();
                }
                Duration limit = running == null ? START_ALLOWANCE
                        : ruleLimit.apply(OutcomeLog.rule(running)).plus(reported == 0 ? START_ALLOWANCE : Duration.ZERO);
                if (System.nanoTime() - since > limit.toNanos()) {
                    stopped = "the kit stopped the job after " + limit.toSeconds() + " s in this rule";
                    break;
                }
                pause();
            }
        } finally {
            job.descendants().forEach(ProcessHandle::destroyForcibly);
            job.destroyForcibly();
            awaitEnd(job);
            removeDevices(jobKey);
        }
        OutcomeLog.Entries e = log.read();
        reported = report(e, reported, outcomes);
        String output = tail(outputFile, e.unfinished().orElse(""));
        if (e.unfinished().isPresent()) {
            Rule rule = OutcomeLog.rule(e.unfinished().get());
            String why = stopped != null ? stopped : "the job ended during this rule (launcher exit " + job.exitValue() + ")";
            outcomes.accept(new RuleOutcome(rule, RuleOutcome.Verdict.FAILED, why + "; see the job's output in the details",
                    output, OptionalLong.empty(), Duration.ZERO));
            deleteQuietly(directory);
            return reported + 1;
        }
        if (reported == 0) {
            if (first) {
                throw new KitLauncher.LaunchFailed("the launched job ended before its first rule (launcher exit "
                        + (stopped != null ? "none: " + stopped : job.exitValue()) + "):\n" + output);
            }
            Rule rule = plan.rules().getFirst().rule();
            outcomes.accept(new RuleOutcome(rule, RuleOutcome.Verdict.FAILED, "the job ended before this rule began", output,
                    OptionalLong.empty(), Duration.ZERO));
            deleteQuietly(directory);
            return 1;
        }
        deleteQuietly(directory);
        return reported;
    }

    private static int report(OutcomeLog.Entries entries, int reported, Consumer<RuleOutcome> outcomes) {
        List<RuleOutcome> all = entries.outcomes();
        for (int i = reported; i < all.size(); i++) {
            outcomes.accept(all.get(i));
        }
        return all.size();
    }

    /** The ranks' device files of the job {@code jobKey} (the hybrid provider's one per host), which a stopped job leaves. */
    private static void removeDevices(String jobKey) {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("lockstep-" + jobKey)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the device files of kit job " + jobKey, e);
        }
    }

    /** The job's output since {@code rule} began (at most {@link #TAIL_LINES} lines of it). */
    private static String tail(Path output, String rule) {
        try {
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            int from = Math.max(lines.lastIndexOf(OutcomeLog.RULE_MARK + rule), 0);
            return String.join("\n", lines.subList(from, Math.min(lines.size(), from + TAIL_LINES)));
        } catch (IOException e) {
            return "(the job's output could not be read: " + e.getMessage() + ")";
        }
    }

    private static void deleteQuietly(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    private static void awaitEnd(Process job) {
        try {
            job.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a launched job", e);
        }
    }

    /** The longest one rule may take in a job: ten of its worlds' deadlines, and a minute. */
    static Duration ruleLimit(RunSettings settings) {
        return settings.runDeadline().multipliedBy(10).plusSeconds(60);
    }
}
