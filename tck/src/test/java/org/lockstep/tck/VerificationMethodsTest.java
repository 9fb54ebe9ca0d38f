package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.lockstep.conformance.Group;
import org.lockstep.conformance.Level;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.verification.DeviceVerification;
import org.lockstep.conformance.verification.MessagingProviderVerification;

/** The catalog and the verification classes agree: one test method per rule, named after it, and enough rules. */
class VerificationMethodsTest {
    private static Set<String> testMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods()).filter(m -> m.isAnnotationPresent(Test.class))
                .filter(m -> Modifier.isPublic(m.getModifiers())).map(Method::getName).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> ruleMethods(Group.Subject subject) {
        return RuleCatalog.all().stream().filter(r -> r.group().subject() == subject).map(Rule::methodName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyMessagingRuleHasExactlyItsVerificationMethod() {
        assertEquals(ruleMethods(Group.Subject.MESSAGING), testMethods(MessagingProviderVerification.class));
    }

    @Test
    void everyDeviceRuleHasExactlyItsVerificationMethod() {
        assertEquals(ruleMethods(Group.Subject.DEVICE), testMethods(DeviceVerification.class));
    }

    @Test
    void atLeastFortyRulesCoverPointToPointMailboxAndIndirection() {
        long count = RuleCatalog.all().stream().filter(r -> Set.of(Group.PT2PT, Group.MBX, Group.LARGE).contains(r.group())).count();
        assertTrue(count >= 40, "only " + count + " point-to-point, mailbox and indirection rules");
        for (Group g : Set.of(Group.PT2PT, Group.MBX, Group.LARGE, Group.DEV)) {
            assertTrue(RuleCatalog.group(g).stream().anyMatch(r -> r.level() == Level.REQUIRED), g + " has no required rule");
        }
    }

    @Test
    void ruleIdsAreUniqueAndEveryRuleNamesWhereItComesFrom() {
        assertEquals(RuleCatalog.all().size(), RuleCatalog.all().stream().map(Rule::id).distinct().count());
        for (Rule r : RuleCatalog.all()) {
            assertTrue(!r.origins().isEmpty() && r.summary().endsWith("."), r + " needs an origin and a one-sentence summary");
            assertEquals(r, RuleCatalog.rule(r.id()));
        }
    }
}
