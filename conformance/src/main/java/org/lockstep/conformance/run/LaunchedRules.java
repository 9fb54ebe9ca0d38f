package org.lockstep.conformance.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.lockstep.api.Communicator;
import org.lockstep.api.JobOptions;
import org.lockstep.api.Lockstep;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;

/**
 * One process of a launched kit job ({@code mpirun -np P java ... LaunchedRules PLAN OUTCOMES}):
 * joins the launcher's world on the plan's provider, then runs the plan's rules in order, as every
 * other process does. Each world a rule asks for is the job's first ranks ({@link LaunchedWorld});
 * after each rule the processes agree on its outcome (failed if it failed in any process, with
 * that process's reason) and rank 0 writes it to the {@link OutcomeLog}.
 */
public final class LaunchedRules {
    private LaunchedRules() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: LaunchedRules PLAN OUTCOMES");
        }
        LaunchPlan plan = LaunchPlan.read(Path.of(args[0]));
        OutcomeLog log = new OutcomeLog(Path.of(args[1]));
        Map<String, String> properties = new TreeMap<>(plan.properties());
        properties.put(Lockstep.PROVIDER_PROPERTY, plan.provider());
        Lockstep.run(new JobOptions(1, properties), world -> run(plan, properties, log, world));
    }

    private static void run(LaunchPlan plan, Map<String, String> properties, OutcomeLog log, Communicator world) {
        LockstepProvider provider = Lockstep.find(plan.provider()).orElseThrow();
        LaunchedWorld launched = new LaunchedWorld(provider, world, log.directory().resolve("signals"));
        MessagingTarget target = new MessagingTarget(plan.provider(), launched, plan.capabilities(world.size()),
                ranks -> new JobOptions(ranks, properties));
        for (LaunchPlan.Step step : plan.rules()) {
            if (world.rank() == 0) {
                log.started(step.rule());
                System.err.println(OutcomeLog.RULE_MARK + step.rule().id()); // where the rule's part of the job's output starts
            }
            RuleOutcome mine = RuleExecutor.run(step.rule(), target, step.settings());
            List<RuleOutcome> all = new ArrayList<>();
            for (byte[] each : launched.allGather(OutcomeLog.encode(mine))) {
                all.add(OutcomeLog.decode(each));
            }
            if (world.rank() == 0) {
                log.finished(agreed(all));
            }
        }
        launched.close();
    }

    /** One outcome from every process's: the first failure (by rank), else the first skip, else a pass. */
    static RuleOutcome agreed(List<RuleOutcome> byRank) {
        Duration longest = byRank.stream().map(RuleOutcome::elapsed).max(Duration::compareTo).orElse(Duration.ZERO);
        for (RuleOutcome.Verdict v : List.of(RuleOutcome.Verdict.FAILED, RuleOutcome.Verdict.SKIPPED)) {
            for (int r = 0; r < byRank.size(); r++) {
                RuleOutcome o = byRank.get(r);
                if (o.verdict() == v) {
                    String where = v == RuleOutcome.Verdict.FAILED ? "in the process of rank " + r + ": " : "";
                    return new RuleOutcome(o.rule(), v, where + o.message(), o.details(), o.seed(), longest);
                }
            }
        }
        RuleOutcome first = byRank.getFirst();
        return new RuleOutcome(first.rule(), first.verdict(), first.message(), first.details(), first.seed(), longest);
    }
}
