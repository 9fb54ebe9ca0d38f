package org.lockstep.tck.mutants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Lockstep;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;
import org.lockstep.conformance.run.RunLimits;
import org.lockstep.conformance.scenario.Scenario;
import org.lockstep.conformance.scenario.ScenarioChecks;
import org.lockstep.conformance.scenario.ScenarioExecution;
import org.lockstep.conformance.scenario.ScenarioSearch;
import org.lockstep.conformance.scenario.ScenarioShape;
import org.lockstep.conformance.scenario.SearchResult;
import org.lockstep.tck.ProviderProfile;

/** A generated failure is reported with the run's seed and shrinks to a small scenario that fails again on its own. */
class ReplayTest {
    private static final long SEED = 1234;
    private static final Set<ScenarioChecks.Property> ORDER = EnumSet.of(ScenarioChecks.Property.COMPLETION,
            ScenarioChecks.Property.DELIVERY, ScenarioChecks.Property.REFERENCE_MATCHING, ScenarioChecks.Property.CHANNEL_ORDER);

    private static Mutant reorder() {
        return Mutants.all().stream().filter(m -> m.id().equals("REORDER_TWO")).findFirst().orElseThrow();
    }

    @Test
    void aReorderIsReportedWithTheRunSeedAndAShrunkScenario() {
        MessagingTarget mailbox = ProviderProfile.mailbox().target(Lockstep.find(ProviderProfile.MAILBOX).orElseThrow());
        try (BrokenTargets broken = BrokenTargets.of(reorder(), mailbox)) {
            RuleOutcome o = RuleExecutor.run(RuleCatalog.rule("PT2PT.30"), broken.messaging(),
                    RunSettings.quick(SEED).withTries(50).withShrinkCycles(0));
            assertTrue(o.failed(), o.toString());
            assertEquals(SEED, o.seed().orElseThrow(), "the report names the seed given to the run");
            assertTrue(o.message().contains("run seed " + SEED), o.message());
            assertTrue(o.details().startsWith("shrunk scenario:"), o.details());
        }
    }

    @Test
    void theShrunkScenarioFailsAgainWhenRunAlone() {
        MessagingTarget mailbox = ProviderProfile.mailbox().target(Lockstep.find(ProviderProfile.MAILBOX).orElseThrow());
        try (BrokenTargets broken = BrokenTargets.of(reorder(), mailbox)) {
            MessagingTarget t = broken.messaging();
            RunLimits limits = new RunLimits(Duration.ofSeconds(10), Duration.ofMillis(200), true);
            Function<Scenario, List<String>> property = s -> ScenarioChecks.check(
                    ScenarioExecution.run(t.provider(), t.jobOptions(s.ranks()), limits, s), ORDER);
            ScenarioShape shape = ScenarioShape.full(List.of(2), 10, ScenarioShape.sizesAround(256)).withoutWildcards();
            SearchResult r = ScenarioSearch.search(shape, SEED, 60, 1_000, Duration.ofSeconds(20), property);
            assertTrue(r.failure().isPresent(), "the reorder was not found in 60 scenarios");
            Scenario shrunk = r.failure().get().scenario();
            assertTrue(shrunk.messages().size() <= 6, "not shrunk much:\n" + shrunk.describe());
            assertFalse(property.apply(shrunk).isEmpty(), "the shrunk scenario passes on its own:\n" + shrunk.describe());
        }
    }
}
