package org.lockstep.tck;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import org.lockstep.api.LockstepException;
import org.lockstep.api.LockstepProvider;
import org.lockstep.conformance.Capabilities;
import org.lockstep.conformance.Capability;
import org.lockstep.conformance.DeviceTarget;
import org.lockstep.conformance.MessagingTarget;
import org.lockstep.conformance.Rule;
import org.lockstep.conformance.RuleCatalog;
import org.lockstep.conformance.RuleExecutor;
import org.lockstep.conformance.RuleOutcome;
import org.lockstep.conformance.RuleSkipped;
import org.lockstep.conformance.RunSettings;
import org.lockstep.conformance.run.LaunchPlan;
import org.lockstep.spi.device.CrashInjectable;
import org.lockstep.spi.device.DeviceCapability;
import org.lockstep.spi.device.DeviceProviders;
import org.lockstep.spi.device.DeviceSpec;
import org.lockstep.spi.device.ExternalMemory;
import org.lockstep.tck.report.ReportWriter;

/**
 * The kit's runner: finds the provider, decides what it declares, runs every selected rule of the
 * {@link RuleCatalog} against it (and the device rules against the device it runs over), and
 * returns the report. {@link #main} is the command line; the {@code lockstep tck} command of the
 * tools module calls {@link #run} the same way.
 */
public final class Tck {
    private Tck() {
    }

    /** Runs the kit as {@code configuration} says, printing progress to {@code progress}. */
    public static TckReport run(TckConfiguration configuration, Consumer<String> progress) {
        Instant started = Instant.now();
        Optional<LockstepProvider> found;
        try {
            found = ProviderDiscovery.find(configuration.provider(), configuration.providerPath());
        } catch (RuntimeException e) {
            return TckReport.nothingRan(configuration.provider(), "looking for provider '" + configuration.provider() + "' failed: " + e,
                    started);
        }
        if (found.isEmpty()) {
            return TckReport.nothingRan(configuration.provider(), "no provider named '" + configuration.provider()
                    + "' is installed; installed: " + ProviderDiscovery.installedNames(configuration.providerPath()), started);
        }
        LockstepProvider provider = found.get();
        ProviderProfile profile = profile(configuration, provider);
        List<String> notes = new ArrayList<>();
        configuration.testlist().ifPresent(t -> notes.add("testlist: " + t.lines().size() + " rules; expected to fail: "
                + t.lines().values().stream().filter(l -> l.expectedFailure().isPresent())
                        .map(l -> l.rule() + " (" + l.expectedFailure().get() + ")").toList()));
        if (configuration.devicePath().isPresent()) {
            if (profile.capabilities().deviceRouting().isEmpty()) {
                return TckReport.nothingRan(provider.name(), "provider " + provider.name()
                        + " does not run over a device, so --device cannot apply (declare it with --capability DEVICE_TRANSPORT)", started);
            }
            try {
                DeviceProviders.named(configuration.deviceProvider());
            } catch (LockstepException e) {
                return TckReport.nothingRan(provider.name(), "cannot map device " + configuration.devicePath().get() + ": "
                        + e.getMessage(), started);
            }
            try {
                DevicePath.Prepared prepared = DevicePath.prepare(profile, provider, configuration.deviceProvider(),
                        configuration.devicePath().get());
                profile = prepared.profile();
                provider = prepared.provider();
                notes.add("the device at " + configuration.devicePath().get() + " (" + prepared.capacity()
                        + " bytes) was overwritten by the kit");
            } catch (LockstepException e) {
                return TckReport.nothingRan(provider.name(), "cannot use device " + configuration.devicePath().get() + ": "
                        + e.getMessage(), started);
            }
        }
        MessagingTarget target = profile.target(provider);
        Optional<DeviceTarget> device = deviceTarget(configuration, profile);
        if (device.isEmpty()) {
            notes.add("device rules not run: the provider does not declare a device it runs over");
        }
        List<Long> seeds = configuration.certification() ? Certification.SEEDS
                : List.of(configuration.seed().orElseGet(() -> new SecureRandom().nextLong()));
        List<Rule> rules = select(configuration);
        if (rules.isEmpty()) {
            return TckReport.nothingRan(provider.name(), "no rule matches the selection " + configuration.rules(), started);
        }
        Map<Rule, RuleOutcome> merged = new LinkedHashMap<>();
        RunSettings first = null;
        for (long seed : seeds) {
            RunSettings settings = settings(configuration, seed);
            first = first == null ? settings : first;
            progress.accept("seed " + seed + ": " + rules.size() + " rules against " + target.name());
            Function<Rule, RunSettings> settingsOf = rule -> configuration.testlist().map(t -> t.settingsFor(rule, settings)).orElse(settings);
            Consumer<RuleOutcome> record = outcome -> {
                RuleOutcome o = configuration.testlist().map(t -> t.declared(outcome)).orElse(outcome);
                progress.accept(String.format("  %-9s %-10s %-42s %s", o.rule().id(), o.rule().level().prefix(), o.rule().name(),
                        o.verdict() + (o.verdict() == RuleOutcome.Verdict.PASSED ? "" : ": " + firstLine(o.message()))
                                + " (" + o.elapsed().toMillis() + " ms)"));
                merged.merge(o.rule(), o, Tck::worse);
            };
            // Under a launcher the messaging rules run in the job's processes; device rules check the device from here.
            List<Rule> inThisJvm = configuration.launcher().isEmpty() ? rules
                    : rules.stream().filter(r -> r.group().subject() == org.lockstep.conformance.Group.Subject.DEVICE).toList();
            if (configuration.launcher().isPresent()) {
                // A provider whose checkpoints are durable only with a world's own checkpoint property (the mailbox
                // transport) cannot run the checkpoint rules in one launched job of fixed properties: skipped, not hung.
                boolean worldsNeedOwnProperties = profile.capabilities().features().contains(Capability.PERSISTENCE);
                String providerName = provider.name();
                rules.stream().filter(r -> worldsNeedOwnProperties && r.group() == org.lockstep.conformance.Group.CKPT)
                        .forEach(r -> record.accept(new RuleOutcome(r, RuleOutcome.Verdict.SKIPPED, "checkpoint rules need worlds of"
                                + " their own properties, which a launched job of " + providerName + " cannot give", "",
                                java.util.OptionalLong.empty(), Duration.ZERO)));
                List<LaunchPlan.Step> steps = rules.stream().filter(r -> !inThisJvm.contains(r))
                        .filter(r -> !(worldsNeedOwnProperties && r.group() == org.lockstep.conformance.Group.CKPT))
                        .map(r -> new LaunchPlan.Step(r, settingsOf.apply(r))).toList();
                // one job holds every world: as many processes as the largest rank count of any rule
                int ranks = configuration.maxRanks().orElse(steps.stream().flatMap(st -> st.settings().rankCounts().stream())
                        .mapToInt(Integer::intValue).max().orElse(2));
                // Rank processes joined by a launcher are one job with one set of properties: the kit can neither interpose
                // on the device they map nor give a world its own (checkpoint) properties, so rules needing either are skipped.
                Set<Capability> launchedFeatures = EnumSet.noneOf(Capability.class);
                launchedFeatures.addAll(profile.capabilities().features());
                launchedFeatures.removeAll(EnumSet.of(Capability.DEVICE_TRANSPORT, Capability.PERSISTENCE));
                LaunchPlan plan = new LaunchPlan(provider.name(), profile.properties(), profile.capabilities().indirectionThreshold(),
                        launchedFeatures, steps);
                notes.add("messaging rules ran in jobs of " + ranks + " rank processes started by " + configuration.launcher().get().command()
                        + " " + String.join(" ", configuration.launcher().get().flags()));
                try {
                    LaunchedKit.run(configuration.launcher().get(), plan, ranks, r -> LaunchedKit.ruleLimit(settingsOf.apply(r)), record,
                            progress);
                } catch (KitLauncher.LaunchFailed e) {
                    return TckReport.nothingRan(provider.name(), e.getMessage(), started);
                }
            }
            for (Rule rule : inThisJvm) {
                RunSettings ruleSettings = settingsOf.apply(rule);
                if (rule.group().subject() == org.lockstep.conformance.Group.Subject.DEVICE) {
                    record.accept(device.map(d -> RuleExecutor.run(rule, d, ruleSettings)).orElseGet(() -> new RuleOutcome(rule,
                            RuleOutcome.Verdict.SKIPPED, "no device to check", "", java.util.OptionalLong.empty(), Duration.ZERO)));
                } else {
                    record.accept(RuleExecutor.run(rule, target, ruleSettings));
                }
            }
        }
        configuration.testlist().ifPresent(t -> merged.values().stream()
                .filter(o -> o.passed() && t.lines().get(o.rule().id()).expectedFailure().isPresent())
                .forEach(o -> notes.add(o.rule().id() + " " + o.message())));
        String targetText = provider.name() + " with " + profile.properties() + "; declares " + describe(profile.capabilities());
        String settingsText = (configuration.certification() ? "certification " + Certification.VERSION + ", " : "")
                + "tries " + first.tries() + ", ranks " + (configuration.testlist().isPresent() ? "as the testlist says"
                        : first.rankCounts()) + ", run deadline " + first.runDeadline().toSeconds()
                + " s, stall timeout " + first.stallTimeout().toSeconds() + " s";
        return new TckReport(provider.name(), provider.description(), targetText, seeds, settingsText, started,
                Duration.between(started, Instant.now()), List.copyOf(merged.values()), notes);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static RuleOutcome worse(RuleOutcome a, RuleOutcome b) {
        return a.failed() ? a : b.failed() ? b : a.passed() ? a : b;
    }

    static String describe(Capabilities c) {
        return "maxRanks " + c.maxRanks() + (c.indirectionThreshold().isPresent() ? ", threshold " + c.indirectionThreshold().getAsLong() : "")
                + (c.indirectBytesPerRank().isPresent() ? ", indirect storage " + c.indirectBytesPerRank().getAsLong() : "")
                + (c.features().isEmpty() ? "" : ", " + c.features());
    }

    /** The built-in profile of the provider, or one made of the user's declarations; the user's values win. */
    static ProviderProfile profile(TckConfiguration configuration, LockstepProvider provider) {
        ProviderProfile base = ProviderProfile.builtIn(provider.name()).orElseGet(() -> new ProviderProfile(
                Capabilities.of(configuration.rankCounts().stream().mapToInt(Integer::intValue).max().orElse(2)), Map.of()));
        Capabilities c = base.capabilities();
        if (configuration.maxRanks().isPresent()) {
            c = new Capabilities(configuration.maxRanks().getAsInt(), c.indirectionThreshold(), c.indirectBytesPerRank(), c.features(),
                    c.deviceRouting(), c.externalMemory());
        }
        if (configuration.threshold().isPresent()) {
            c = c.withIndirectionThreshold(configuration.threshold().getAsLong());
        }
        if (configuration.indirectBytes().isPresent()) {
            c = c.withIndirectBytesPerRank(configuration.indirectBytes().getAsLong());
        }
        for (org.lockstep.conformance.Capability f : configuration.features()) {
            c = f == org.lockstep.conformance.Capability.DEVICE_TRANSPORT
                    ? c.withDeviceRouting(c.deviceRouting().orElse(org.lockstep.conformance.DeviceRouting.MAILBOX)) : c.with(f);
        }
        return base.withCapabilities(c).withProperties(configuration.options());
    }

    static RunSettings settings(TckConfiguration configuration, long seed) {
        if (configuration.certification()) {
            return Certification.settings(seed);
        }
        return RunSettings.defaults(seed).withTries(configuration.tries()).withRankCounts(configuration.rankCounts())
                .withTimeouts(configuration.runDeadline(), configuration.stallTimeout());
    }

    static List<Rule> select(TckConfiguration configuration) {
        if (configuration.testlist().isPresent()) {
            return configuration.testlist().get().rules();
        }
        if (configuration.rules().isEmpty()) {
            return RuleCatalog.all();
        }
        return RuleCatalog.all().stream().filter(r -> configuration.rules().contains(r.id())
                || configuration.rules().contains(r.group().name())).toList();
    }

    /** The device the provider runs over, opened fresh for each device rule. */
    static Optional<DeviceTarget> deviceTarget(TckConfiguration configuration, ProviderProfile profile) {
        if (profile.capabilities().deviceRouting().isEmpty()) {
            return Optional.empty();
        }
        String deviceProvider = profile.properties().getOrDefault(ProviderProfile.DEVICE,
                profile.capabilities().deviceRouting().get().defaultDevice());
        Optional<String> path = Optional.ofNullable(profile.properties().get(ProviderProfile.DEVICE_PATH));
        // A device path keeps its size: every device rule maps all of it.
        Optional<Long> fixed = Optional.ofNullable(profile.properties().get(DevicePath.SIZE_PROPERTY)).filter(s -> path.isPresent())
                .map(Long::parseLong);
        return Optional.of(new DeviceTarget(deviceProvider + path.map(p -> " at " + p).orElse(""),
                capacity -> DeviceProviders.open(new DeviceSpec(deviceProvider, Math.max(capacity, fixed.orElse(capacity)),
                        DeviceSpec.DEFAULT_BLOCK_SIZE, path, Map.of())),
                Optional.of(Tck::crashThroughDevice)));
    }

    /**
     * Emulated power loss through the device SPI's {@link CrashInjectable}: every unpersisted line
     * is lost, then the device is powered on again. A device that declares CRASH_INJECTION but does
     * not implement the operation skips the rule.
     */
    static void crashThroughDevice(ExternalMemory device) {
        if (!device.has(DeviceCapability.CRASH_INJECTION)) {
            throw new RuleSkipped("the device does not declare CRASH_INJECTION");
        }
        if (!(device instanceof CrashInjectable crash)) {
            throw new RuleSkipped("the device declares CRASH_INJECTION but is no " + CrashInjectable.class.getName()
                    + " (" + device.getClass().getName() + ")");
        }
        crash.powerLoss(CrashInjectable.PowerLoss.WHOLE_LINES);
        crash.powerOn();
    }

    /** Writes the report's files into {@code directory}; returns their paths. */
    public static List<Path> write(TckReport report, Path directory) {
        return ReportWriter.writeAll(report, directory);
    }

    /** The command line: {@code --provider NAME [--device PATH] [--ranks 2,3,4,8] [--seed S] [--tries N] [--report DIR] ...}. */
    public static void main(String[] args) {
        System.exit(TckArguments.runFromCommandLine(args, System.out::println, System.err::println));
    }
}
