package org.lockstep.conformance;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.lockstep.api.JobOptions;
import org.lockstep.conformance.run.RankBody;
import org.lockstep.conformance.run.RunLimits;
import org.lockstep.conformance.run.RunResult;
import org.lockstep.conformance.run.WorldRunner;
import org.lockstep.conformance.scenario.Scenario;
import org.lockstep.conformance.scenario.ScenarioSearch;
import org.lockstep.conformance.scenario.ScenarioShape;
import org.lockstep.conformance.scenario.SearchResult;

/** What a messaging rule's check gets: the target, the settings, and ways to run worlds and searches. */
public final class MessagingRuleContext {
    /** The threshold assumed for sizes when a provider declares none: a common eager limit. */
    public static final int ASSUMED_THRESHOLD = 4096;
    private static final Duration LAUNCHED_SHRINK_BUDGET = Duration.ofDays(1);

    private final Rule rule;
    private final MessagingTarget target;
    private final RunSettings settings;

    MessagingRuleContext(Rule rule, MessagingTarget target, RunSettings settings) {
        this.rule = rule;
        this.target = target;
        this.settings = settings;
    }

    public MessagingTarget target() {
        return target;
    }

    public RunSettings settings() {
        return settings;
    }

    public Capabilities capabilities() {
        return target.capabilities();
    }

    /** The limits of one run under these settings. */
    public RunLimits limits() {
        return RunLimits.of(settings);
    }

    /** Runs {@code body} on a world of {@code ranks} ranks of the target; the caller inspects the result. */
    public RunResult run(int ranks, RankBody body) {
        return run(target, target.jobOptions(ranks), limits(), body);
    }

    /** Runs {@code body} and fails the rule unless the run was clean; {@code what} names the run in the failure. */
    public void runClean(int ranks, String what, RankBody body) {
        run(ranks, body).requireOk(what + " on " + ranks + " ranks");
    }

    /** Runs {@code body} on a world of {@code other} with {@code options} and {@code limits}. */
    public RunResult run(MessagingTarget other, JobOptions options, RunLimits runLimits, RankBody body) {
        return WorldRunner.run(other.provider(), options, runLimits, body);
    }

    /** The configured rank counts within {@code [min, max]} and the provider's limit; skips the rule if none is left. */
    public List<Integer> rankCounts(int min, int max) {
        int limit = Math.min(max, capabilities().maxRanks());
        List<Integer> counts = settings.rankCounts().stream().filter(n -> n >= min && n <= limit).toList();
        if (counts.isEmpty()) {
            if (min <= limit) {
                return List.of(min);
            }
            throw new RuleSkipped("needs at least " + min + " ranks; the provider declares at most " + capabilities().maxRanks());
        }
        return counts;
    }

    /** The largest configured rank count within {@code [min, max]}. */
    public int largestRanks(int min, int max) {
        return rankCounts(min, max).getLast();
    }

    /** The provider's indirection threshold, or {@link #ASSUMED_THRESHOLD} if it declares none. */
    public int threshold() {
        return (int) Math.min(Integer.MAX_VALUE / 8, capabilities().indirectionThreshold().orElse(ASSUMED_THRESHOLD));
    }

    /** A random source for this rule, from the settings' seed (so the rule replays). */
    public SplittableRandom random() {
        return new SplittableRandom(settings.seed() ^ rule.id().hashCode());
    }

    /** How long a generated rule may spend shrinking a failure. */
    public Duration shrinkBudget() {
        if (target.provider() instanceof org.lockstep.conformance.run.LaunchedWorld) {
            // Every process of a launched job must shrink alike, which a clock cannot promise: the cycles bound it.
            return LAUNCHED_SHRINK_BUDGET;
        }
        return settings.runDeadline().multipliedBy(2);
    }

    /**
     * Searches scenarios of {@code shape} for one with problems; fails the rule with the shrunk
     * scenario and the seed if one is found.
     */
    public SearchResult search(ScenarioShape shape, Function<Scenario, List<String>> problems) {
        // Each rule draws its own scenarios from the run's seed, so that rules do not repeat one another.
        SearchResult result = ScenarioSearch.search(shape, settings.seed() ^ rule.id().hashCode(), settings.tries(),
                settings.shrinkCycles(), shrinkBudget(), problems);
        result.failure().ifPresent(f -> {
            throw new RuleViolation(f.problems().getFirst().lines().findFirst().orElse("a generated scenario failed")
                    + " (run seed " + settings.seed() + ", after " + result.examples() + " scenario(s), shrunk over "
                    + f.failingScenarios() + " failing one(s))",
                    "shrunk scenario:\n" + f.scenario().describe() + "problems:\n" + String.join("\n", f.problems()),
                    java.util.OptionalLong.of(settings.seed()), null);
        });
        return result;
    }
}
