package org.lockstep.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.Level;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RunSettings;
import org.lockstep.tck.mutants.BrokenTargets;
import org.lockstep.tck.mutants.Mutant;
import org.lockstep.tck.mutants.Mutants;

/**
 * The self-test: runs rules against deliberately broken versions of a real provider and device
 * (made with Byte Buddy from the real objects, or, for a provider that offers fault-injection hooks,
 * switched on inside it by a job property), and requires each rule to catch the breakage it is
 * meant to catch. A required rule that is no mutant's designated killer is a defect of the kit.
 */
public final class SelfTest {
    public static final String REPORT = "tck-self-test.md";

    private SelfTest() {
    }

    /** Settings for runs against mutants: broken runs hang by design, so stalls are cut short; no shrinking (only the verdict counts). */
    public static RunSettings settings(long seed) {
        return new RunSettings(seed, 50, List.of(2, 3, 4), Duration.ofSeconds(10), Duration.ofSeconds(1), 0, 1);
    }

    /** The self-test against the provider and device {@code configuration} names. */
    public static SelfTestReport run(TckConfiguration configuration, Consumer<String> progress) {
        LockstepProvider provider = ProviderDiscovery.find(configuration.provider(), configuration.providerPath())
                .orElseThrow(() -> new IllegalArgumentException("no provider named " + configuration.provider()));
        ProviderProfile profile = Tck.profile(configuration, provider);
        if (configuration.devicePath().isPresent()) {
            DevicePath.Prepared prepared = DevicePath.prepare(profile, provider, configuration.deviceProvider(),
                    configuration.devicePath().get());
            profile = prepared.profile();
            provider = prepared.provider();
        }
        return run(profile.target(provider), Tck.deviceTarget(configuration, profile),
                settings(configuration.seed().orElse(Certification.SEEDS.getFirst())), false, progress);
    }

    /**
     * Runs each mutant's designated killers against it ({@code fullMatrix}: every required rule too).
     *
     * @param device the device to break for the device mutants (those are skipped without one)
     */
    public static SelfTestReport run(MessagingTarget real, Optional<DeviceTarget> device, RunSettings settings, boolean fullMatrix,
                                     Consumer<String> progress) {
        Instant start = Instant.now();
        List<SelfTestReport.MutantResult> results = new ArrayList<>();
        for (Mutant m : Mutants.applicableTo(real.capabilities())) {
            Set<String> ids = new LinkedHashSet<>(m.killers());
            if (fullMatrix) {
                RuleCatalog.all().stream().filter(r -> r.level() == Level.REQUIRED && (m.where() == Mutant.Where.DEVICE)
                        == (r.group().subject() == org.lockstep.conformance.Group.Subject.DEVICE)).forEach(r -> ids.add(r.id()));
            }
            List<RuleOutcome> outcomes = new ArrayList<>();
            for (String id : ids) {
                Rule rule = RuleCatalog.rule(id);
                RuleOutcome o = runOne(m, rule, real, device, settings);
                outcomes.add(o);
                progress.accept(String.format("  %-28s %-9s %s", m.id(), id, o.failed() ? "killed" : o.verdict() == RuleOutcome.Verdict.SKIPPED
                        ? "n/a: " + o.message() : "SURVIVED") + " (" + o.elapsed().toMillis() + " ms)");
            }
            results.add(new SelfTestReport.MutantResult(m.id(), m.breakage(), m.where().name(), m.simulated(), outcomes, m.killers()));
        }
        return new SelfTestReport(results, unmappedRequiredRules(), Duration.between(start, Instant.now()));
    }

    private static RuleOutcome runOne(Mutant m, Rule rule, MessagingTarget real, Optional<DeviceTarget> device, RunSettings settings) {
        if (m.where() == Mutant.Where.DEVICE) {
            if (device.isEmpty()) {
                return new RuleOutcome(rule, RuleOutcome.Verdict.SKIPPED, "no device to break", "", java.util.OptionalLong.empty(),
                        Duration.ZERO);
            }
            return RuleExecutor.run(rule, BrokenTargets.device(m, device.get()), settings);
        }
        try (BrokenTargets broken = BrokenTargets.of(m, real)) {
            return RuleExecutor.run(rule, broken.messaging(), settings);
        } catch (org.lockstep.conformance.RuleSkipped skipped) {
            return new RuleOutcome(rule, RuleOutcome.Verdict.SKIPPED, skipped.getMessage(), "", java.util.OptionalLong.empty(),
                    Duration.ZERO);
        }
    }

    /** Required rules that are no mutant's designated killer. */
    public static List<String> unmappedRequiredRules() {
        Set<String> designated = new LinkedHashSet<>();
        Mutants.all().forEach(m -> designated.addAll(m.killers()));
        return RuleCatalog.all().stream().filter(r -> r.level() == Level.REQUIRED && !designated.contains(r.id())).map(Rule::id).toList();
    }

    /** Writes the mutant table into {@code directory}. */
    public static Path write(SelfTestReport report, Path directory) {
        try {
            Files.createDirectories(directory);
            Path p = directory.resolve(REPORT);
            Files.writeString(p, report.markdown());
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the self-test report into " + directory, e);
        }
    }
}
