package org.lockstep.tck;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

import org.lockstep.conformance.Capability;
import org.lockstep.conformance.RunSettings;

/**
 * One run of the kit, as the command line describes it.
 *
 * @param provider         the provider's name (found with ServiceLoader)
 * @param providerPath     extra jars or directories to look for providers in
 * @param devicePath       run the mailbox transport over this device path (and check the device)
 * @param deviceProvider   the device provider that maps {@code devicePath}
 * @param rankCounts       rank counts to use
 * @param seed             the seed (random if absent, and printed)
 * @param tries            generated scenarios per generated rule
 * @param reportDirectory  where to write the reports
 * @param certification    use the fixed published seed list and effort
 * @param rules            rule ids or group names to run (all if empty)
 * @param options          extra job properties for the provider's worlds
 * @param maxRanks         declared largest world, for a provider without a built-in profile
 * @param threshold        declared indirection threshold
 * @param indirectBytes    declared indirect storage per rank
 * @param features         declared optional features
 * @param runDeadline      longest one world may run
 * @param stallTimeout     longest every rank may be blocked with nothing completing
 * @param testlist         the provider's own table of rules, rank counts, time limits and expected failures
 * @param launcher         run each rule in a job of rank processes started by this launcher (mpirun), not in this JVM
 */
public record TckConfiguration(String provider, List<Path> providerPath, Optional<String> devicePath, String deviceProvider,
                               List<Integer> rankCounts, OptionalLong seed, int tries, Optional<Path> reportDirectory,
                               boolean certification, Set<String> rules, Map<String, String> options, OptionalInt maxRanks,
                               OptionalLong threshold, OptionalLong indirectBytes, Set<Capability> features,
                               Duration runDeadline, Duration stallTimeout, Optional<Testlist> testlist, Optional<KitLauncher> launcher) {
    public static final int DEFAULT_TRIES = 100;

    public TckConfiguration {
        Objects.requireNonNull(provider, "provider");
        providerPath = List.copyOf(providerPath);
        rankCounts = List.copyOf(rankCounts);
        rules = Set.copyOf(rules);
        options = Map.copyOf(options);
        features = Set.copyOf(features);
        if (tries < 1) {
            throw new IllegalArgumentException("--tries must be at least 1, got " + tries);
        }
    }

    /** A configuration for {@code provider} with every default. */
    public static TckConfiguration of(String provider) {
        return new TckConfiguration(provider, List.of(), Optional.empty(), ProviderProfile.MAPPED_DEVICE,
                RunSettings.DEFAULT_RANK_COUNTS, OptionalLong.empty(), DEFAULT_TRIES, Optional.empty(), false, Set.of(), Map.of(),
                OptionalInt.empty(), OptionalLong.empty(), OptionalLong.empty(), Set.of(), Duration.ofSeconds(30),
                Duration.ofSeconds(5), Optional.empty(), Optional.empty());
    }

    public TckConfiguration withSeed(long s) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, OptionalLong.of(s), tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withTries(int n) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, n,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withRankCounts(List<Integer> counts) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, counts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withReportDirectory(Path dir) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                Optional.of(dir), certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withRules(Set<String> selection) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, selection, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withDevice(String path, String mappedBy) {
        return new TckConfiguration(provider, providerPath, Optional.of(path), mappedBy, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withCertification(boolean on) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, on, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withTimeouts(Duration deadline, Duration stall) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, deadline, stall, testlist, launcher);
    }

    public TckConfiguration withOptions(Map<String, String> more) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, more, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withProviderPath(List<Path> path) {
        return new TckConfiguration(provider, path, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withDeclarations(OptionalInt ranks, OptionalLong bytesInPlace, OptionalLong indirect, Set<Capability> declared) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, ranks, bytesInPlace, indirect, declared, runDeadline, stallTimeout, testlist, launcher);
    }

    public TckConfiguration withTestlist(Testlist table) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout,
                Optional.of(table), launcher);
    }

    public TckConfiguration withLauncher(KitLauncher newLauncher) {
        return new TckConfiguration(provider, providerPath, devicePath, deviceProvider, rankCounts, seed, tries,
                reportDirectory, certification, rules, options, maxRanks, threshold, indirectBytes, features, runDeadline, stallTimeout,
                testlist, Optional.of(newLauncher));
    }
}
