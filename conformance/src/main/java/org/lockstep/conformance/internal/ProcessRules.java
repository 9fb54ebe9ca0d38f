package org.lockstep.conformance.internal;

import static org.lockstep.conformance.Group.PROC;
import static org.lockstep.conformance.Origin.seed;
import static org.lockstep.conformance.RuleViolation.check;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.lockstep.conformance.Capability;
import org.lockstep.conformance.DeviceRouting;
import org.lockstep.conformance.MessagingRuleContext;
import org.lockstep.conformance.Origin;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.run.ProcessJob;

/**
 * Rules for ranks that are separate processes of one host ({@link Capability#SEPARATE_PROCESSES}):
 * what the others see when a rank stops without dying, and when the launcher dies. The kit starts
 * the ranks itself ({@link ProcessJob}), as a launcher would.
 */
final class ProcessRules {
    /** How long the ranks of a kit job may take to start on a loaded machine. */
    private static final Duration START = Duration.ofSeconds(120);
    /** The bound on noticing a stopped rank: a liveness lease of a few seconds, and room for a loaded machine. */
    private static final Duration STOPPED_NOTICED = Duration.ofSeconds(30);
    /** The bound on ranks ending after their launcher died. */
    private static final Duration ORPHANS_GONE = Duration.ofSeconds(15);
    private static final Pattern SAW_FAIL = Pattern.compile("rank (\\d+) saw rank (\\d+) fail at (\\d+): (\\w+)");

    private ProcessRules() {
    }

    static List<Rule> rules() {
        List<Origin> liveness = List.of(seed("a process that dies holding a slot is detected and recovered within a bounded lease"),
                Origin.standard("§9.3 error classes (MPI_ERR_PROC_FAILED), ULFM"));
        return List.of(
                Definitions.optional(PROC, 1, Capability.SEPARATE_PROCESSES, "stoppedRankFails",
                        "A rank stopped with SIGSTOP (alive, running nothing) is, within a bounded lease, a failed process to the "
                                + "others: their receive from it ends in PROC_FAILED naming it, and no one waits for ever.",
                        liveness, ProcessRules::stoppedRankFails),
                Definitions.optional(PROC, 2, Capability.SEPARATE_PROCESSES, "ranksEndWithTheirLauncher",
                        "When the launcher dies (SIGKILL), every rank ends within a bound and the device file made for the job is "
                                + "removed: nothing runs on unseen, nothing is left behind.",
                        liveness, ProcessRules::ranksEndWithTheirLauncher));
    }

    /** The target's job properties for separate processes: its device is the provider's choice for processes. */
    static Map<String, String> processProperties(MessagingRuleContext c, int ranks) {
        Map<String, String> properties = new TreeMap<>(c.target().jobOptions(ranks).properties());
        c.capabilities().deviceRouting().ifPresent(routing -> properties.keySet().removeIf(k -> isDeviceKey(routing, k)));
        return properties;
    }

    private static boolean isDeviceKey(DeviceRouting routing, String key) {
        return key.equals(routing.deviceProperty()) || key.startsWith(routing.optionPrefix()) || key.startsWith(routing.deviceProperty() + ".path");
    }

    private static void stoppedRankFails(MessagingRuleContext c) {
        try (ProcessJob job = ProcessJob.start(c.target().provider().name(), processProperties(c, 3), 3, "wait-on-rank-1")) {
            check(job.awaitLines(l -> l.endsWith(" holding"), 3, START), "the 3 rank processes did not all start: " + job.lines());
            long stoppedAt = System.nanoTime();
            ProcessJob.signal(job.pidOf(1).orElseThrow(), "STOP");
            boolean noticed = job.awaitLines(l -> SAW_FAIL.matcher(l).find(), 2, STOPPED_NOTICED);
            check(noticed, "ranks 0 and 2 still wait for stopped rank 1 after " + STOPPED_NOTICED.toSeconds() + " s: " + job.lines());
            for (String line : job.lines()) {
                Matcher m = SAW_FAIL.matcher(line);
                if (m.find()) {
                    check(m.group(2).equals("1") && m.group(4).equals("PROC_FAILED"), "rank " + m.group(1)
                            + "'s receive from the stopped rank ended so: " + line);
                    check(Long.parseLong(m.group(3)) > stoppedAt, "rank " + m.group(1) + " saw rank 1 fail before it was stopped");
                }
            }
        }
    }

    private static void ranksEndWithTheirLauncher(MessagingRuleContext c) {
        try (ProcessJob job = ProcessJob.start(c.target().provider().name(), processProperties(c, 2), 2, "hold", "/nonexistent/never")) {
            check(job.awaitLines(l -> l.endsWith(" holding"), 2, START), "the 2 rank processes did not all start: " + job.lines());
            long[] ranks = {job.pidOf(0).orElseThrow(), job.pidOf(1).orElseThrow()};
            job.launcher().destroyForcibly(); // SIGKILL: the launcher cleans up nothing
            long end = System.nanoTime() + ORPHANS_GONE.toNanos();
            while (System.nanoTime() - end < 0 && (alive(ranks[0]) || alive(ranks[1]) || java.nio.file.Files.exists(job.device()))) {
                Thread.onSpinWait();
                Thread.yield();
            }
            check(!alive(ranks[0]) && !alive(ranks[1]), "ranks still run " + ORPHANS_GONE.toSeconds() + " s after their launcher died");
            check(!java.nio.file.Files.exists(job.device()), "the job's device " + job.device() + " outlived its ranks");
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
