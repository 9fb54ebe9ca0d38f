package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.lockstep.api.Lockstep;
import org.lockstep.conformance.Group;
import org.lockstep.conformance.Level;
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
 * The checkpoint rule group on its own: every CKPT rule passes against the mailbox transport (with
 * its device as the message log), the required one also against the EM-BSP provider (no
 * persistence: the calls are declared no-ops), and each CKPT mutant is caught by its designated rule
 * (three of them are the mailbox transport's own fault-injection hooks, not applicable to others).
 */
class CheckpointRulesTest {
    private static final long SEED = 2026;

    private static MessagingTarget mailbox() {
        return ProviderProfile.mailbox().target(Lockstep.find(ProviderProfile.MAILBOX).orElseThrow());
    }

    @TestFactory
    Stream<DynamicTest> everyCheckpointRulePassesAgainstTheMailboxTransport() {
        List<Rule> rules = RuleCatalog.group(Group.CKPT);
        assertEquals(5, rules.size(), "CKPT.01..05");
        return rules.stream().map(rule -> DynamicTest.dynamicTest(rule.methodName(), () -> {
            RuleOutcome o = RuleExecutor.run(rule, mailbox(), SelfTest.settings(SEED));
            assertEquals(RuleOutcome.Verdict.PASSED, o.verdict(), o.message() + "\n" + o.details());
        }));
    }

    @TestFactory
    Stream<DynamicTest> theRequiredRulePassesWithoutPersistence() {
        return RuleCatalog.group(Group.CKPT).stream().filter(r -> r.level() == Level.REQUIRED)
                .map(rule -> DynamicTest.dynamicTest(rule.methodName() + " on em-bsp", () -> {
                    MessagingTarget embsp = MessagingTarget.of(Lockstep.find("embsp").orElseThrow(),
                            org.lockstep.conformance.Capabilities.of(4));
                    RuleOutcome o = RuleExecutor.run(rule, embsp, SelfTest.settings(SEED));
                    assertEquals(RuleOutcome.Verdict.PASSED, o.verdict(), o.message() + "\n" + o.details());
                }));
    }

    @TestFactory
    Stream<DynamicTest> eachCheckpointMutantIsCaughtByItsDesignatedRule() {
        List<Mutant> ckpt = Mutants.all().stream().filter(m -> m.killers().stream().anyMatch(k -> k.startsWith("CKPT."))).toList();
        assertEquals(5, ckpt.size(), "one mutant per CKPT rule");
        return ckpt.stream().map(m -> DynamicTest.dynamicTest(m.id(), () -> {
            for (String id : m.killers()) {
                try (BrokenTargets broken = BrokenTargets.of(m, mailbox())) {
                    RuleOutcome o = RuleExecutor.run(RuleCatalog.rule(id), broken.messaging(), SelfTest.settings(SEED));
                    assertTrue(o.failed(), m.id() + " survived " + id + ": " + o.verdict() + " " + o.message());
                }
            }
        }));
    }

    @Test
    void theMailboxTransportsOwnFaultsAreRealAndNotApplicableToAnotherProvider() {
        List<Mutant> faults = Mutants.all().stream().filter(m -> m.where() == Mutant.Where.PROVIDER_FAULT
                && m.fault().provider().equals(ProviderProfile.MAILBOX)).toList();
        assertEquals(List.of("FREES_ON_RECEIPT", "DIRECT_FOLD_REVERSED", "SHARED_BCAST_SKIPS_LAST_PIECE", "BCAST_READS_UNPUBLISHED",
                "REPLAYS_OUT_OF_ORDER", "FORGETS_WILDCARD_ORDER"), faults.stream().map(Mutant::id).toList());
        MessagingTarget embsp = MessagingTarget.of(Lockstep.find("embsp").orElseThrow(), org.lockstep.conformance.Capabilities.of(4));
        for (Mutant m : faults) {
            assertFalse(m.simulated(), m.id());
            assertEquals(ProviderProfile.MAILBOX_FAULTS, m.fault().property());
            RuleSkipped skipped = assertThrows(RuleSkipped.class, () -> BrokenTargets.of(m, embsp).close());
            assertTrue(skipped.getMessage().contains("embsp"), skipped.getMessage());
        }
    }
}
