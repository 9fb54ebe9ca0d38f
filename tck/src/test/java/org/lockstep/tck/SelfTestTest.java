package org.lockstep.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.lockstep.api.Lockstep;
import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;

/**
 * The self-test: each mutant of the mailbox transport and of the emulated device is caught by every
 * rule designated to catch it, and every required rule is designated for some mutant.
 */
class SelfTestTest {
    private static final long SEED = 77;

    @Test
    void everyRequiredRuleIsTheDesignatedKillerOfSomeMutant() {
        assertEquals(List.of(), SelfTest.unmappedRequiredRules(), "required rules that no mutant tests");
    }

    @Test
    void everyMutantIsKilledByEveryRuleDesignatedToKillIt() {
        MessagingTarget mailbox = ProviderProfile.mailbox().target(Lockstep.find(ProviderProfile.MAILBOX).orElseThrow());
        DeviceTarget emulated = new DeviceTarget("emulated", capacity -> DeviceProviders.open(DeviceSpec.of("emulated", capacity)),
                Optional.of(Tck::crashThroughDevice));
        SelfTestReport report = SelfTest.run(mailbox, Optional.of(emulated), SelfTest.settings(SEED), false, line -> { });
        SelfTest.write(report, Path.of("target"));
        assertTrue(report.ok(), report::markdown);
        Map<String, List<String>> notRun = report.mutants().stream().filter(m -> !m.notApplicable().isEmpty())
                .collect(Collectors.toMap(SelfTestReport.MutantResult::id, SelfTestReport.MutantResult::notApplicable));
        assertEquals(Map.of(), notRun, "designated killers that could not run against the mailbox transport and emulated device");
        assertTrue(report.mutants().size() >= 7, "the seven breakages the kit promises, and more");
    }
}
