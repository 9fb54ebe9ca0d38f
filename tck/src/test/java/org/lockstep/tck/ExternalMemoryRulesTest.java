package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.lockstep.api.Lockstep;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.Group;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.tck.mutants.BrokenTargets;
import org.lockstep.tck.mutants.Mutant;
import org.lockstep.tck.mutants.Mutants;

/**
 * The EMBSP rule group on its own: each rule needs an external-memory provider (skipped against the
 * mailbox transport), and each EMBSP mutant of the EM-BSP simulator is caught by its designated rule
 * (two of them are the simulator's own fault-injection hooks, not applicable to another provider).
 * That the real simulator passes them, on every I/O and thread driver, is the EM-BSP verification's
 * part ({@link EmBspProviderVerificationTest}).
 */
class ExternalMemoryRulesTest {
    private static final long SEED = 2027;
    /** What each mutant's designated rule must say when it catches it. */
    private static final java.util.Map<String, String> WHY_KILLED = java.util.Map.of(
            "EXSCAN_INCLUSIVE", "exscan sum",
            "SWAPS_TWICE", "a call beyond its bound",
            "KEEPS_CONTEXTS_IN_MEMORY", "were in no file under the provider's disk directory");

    private static MessagingTarget embsp() {
        return ProviderProfile.embsp().target(Lockstep.find(ProviderProfile.EMBSP).orElseThrow());
    }

    private static MessagingTarget mailbox() {
        return ProviderProfile.mailbox().target(Lockstep.find(ProviderProfile.MAILBOX).orElseThrow());
    }

    private static List<Mutant> embspMutants() {
        return Mutants.all().stream().filter(m -> m.killers().stream().anyMatch(k -> k.startsWith("EMBSP."))).toList();
    }

    @Test
    void everyRuleNeedsExternalMemoryAndIsSkippedWithoutIt() {
        List<Rule> rules = RuleCatalog.group(Group.EMBSP);
        assertEquals(3, rules.size(), "EMBSP.01..03");
        for (Rule rule : rules) {
            assertEquals(java.util.Set.of(Capability.EXTERNAL_MEMORY), rule.needs(), rule.id());
            RuleOutcome o = RuleExecutor.run(rule, mailbox(), SelfTest.settings(SEED));
            assertEquals(RuleOutcome.Verdict.SKIPPED, o.verdict(), rule.id() + " against the mailbox transport: " + o.message());
        }
    }

    @TestFactory
    Stream<DynamicTest> eachExternalMemoryMutantIsCaughtByItsDesignatedRule() {
        List<Mutant> mutants = embspMutants();
        assertEquals(List.of("EXSCAN_INCLUSIVE", "SWAPS_TWICE", "KEEPS_CONTEXTS_IN_MEMORY"), mutants.stream().map(Mutant::id).toList(),
                "one mutant per EMBSP rule");
        return mutants.stream().map(m -> DynamicTest.dynamicTest(m.id(), () -> {
            for (String id : m.killers()) {
                try (BrokenTargets broken = BrokenTargets.of(m, embsp())) {
                    RuleOutcome o = RuleExecutor.run(RuleCatalog.rule(id), broken.messaging(), SelfTest.settings(SEED));
                    assertTrue(o.failed(), m.id() + " survived " + id + ": " + o.verdict() + " " + o.message());
                    // killed for what it breaks, not by an accident of the run
                    assertTrue(o.message().contains(WHY_KILLED.get(m.id())), m.id() + " was killed by " + id + " for another reason: " + o.message());
                }
            }
        }));
    }

    @Test
    void theSimulatorsOwnFaultsAreNotApplicableToAnotherProviderNorRunAgainstOne() {
        for (Mutant m : embspMutants()) {
            assertTrue(Mutants.breaksExternalMemory(m), m.id());
            if (m.where() == Mutant.Where.PROVIDER_FAULT) {
                assertEquals(ProviderProfile.EMBSP_FAULTS, m.fault().property());
                RuleSkipped skipped = assertThrows(RuleSkipped.class, () -> BrokenTargets.of(m, mailbox()).close());
                assertTrue(skipped.getMessage().contains("mailbox"), skipped.getMessage());
            }
        }
        assertTrue(Mutants.applicableTo(mailbox().capabilities()).stream().noneMatch(Mutants::breaksExternalMemory),
                "the self-test against the mailbox transport leaves the external-memory mutants out");
        assertTrue(Mutants.applicableTo(embsp().capabilities()).stream().map(Mutant::id).toList()
                .containsAll(embspMutants().stream().map(Mutant::id).toList()), "the external-memory mutants run against the simulator");
    }
}
