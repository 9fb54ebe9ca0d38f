package org.lockstep.conformance;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How hard the kit tries: the seed of every generated scenario, how many scenarios a generated
 * rule tries, which rank counts rules use, how long one world may run, how long it may sit with
 * every rank blocked before that counts as a deadlock, how many shrink steps a failure gets, and
 * how often a stochastic rule repeats.
 *
 * @param seed         seed of the scenario generator (printed with every failure, so it replays)
 * @param tries        scenarios per generated rule
 * @param rankCounts   rank counts to run (each rule uses those within its bounds and the provider's)
 * @param runDeadline  longest a world may run before its ranks are reported and stopped
 * @param stallTimeout how long every unfinished rank may be blocked without progress before that is a deadlock
 * @param shrinkCycles shrink steps after a generated failure
 * @param repetitions  repetitions of a stochastic rule
 */
public record RunSettings(long seed, int tries, List<Integer> rankCounts, Duration runDeadline, Duration stallTimeout,
                          int shrinkCycles, int repetitions) {
    public static final List<Integer> DEFAULT_RANK_COUNTS = List.of(2, 3, 4, 8);

    public RunSettings {
        if (tries < 1) {
            throw new IllegalArgumentException("tries must be at least 1, got " + tries);
        }
        if (rankCounts.isEmpty() || rankCounts.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("rank counts must be positive, got " + rankCounts);
        }
        rankCounts = rankCounts.stream().distinct().sorted().toList();
        Objects.requireNonNull(runDeadline, "runDeadline");
        Objects.requireNonNull(stallTimeout, "stallTimeout");
        if (shrinkCycles < 0 || repetitions < 1) {
            throw new IllegalArgumentException("shrinkCycles >= 0 and repetitions >= 1, got " + shrinkCycles + ", " + repetitions);
        }
    }

    /** The settings of a full run with {@code seed}. */
    public static RunSettings defaults(long seed) {
        return new RunSettings(seed, 100, DEFAULT_RANK_COUNTS, Duration.ofSeconds(30), Duration.ofSeconds(5), 1_000, 5);
    }

    /** Small settings for continuous integration on small machines. */
    public static RunSettings quick(long seed) {
        return new RunSettings(seed, 15, List.of(2, 3, 4), Duration.ofSeconds(20), Duration.ofSeconds(3), 500, 2);
    }

    public RunSettings withSeed(long newSeed) {
        return new RunSettings(newSeed, tries, rankCounts, runDeadline, stallTimeout, shrinkCycles, repetitions);
    }

    public RunSettings withTries(int newTries) {
        return new RunSettings(seed, newTries, rankCounts, runDeadline, stallTimeout, shrinkCycles, repetitions);
    }

    public RunSettings withRankCounts(List<Integer> counts) {
        return new RunSettings(seed, tries, counts, runDeadline, stallTimeout, shrinkCycles, repetitions);
    }

    public RunSettings withTimeouts(Duration deadline, Duration stall) {
        return new RunSettings(seed, tries, rankCounts, deadline, stall, shrinkCycles, repetitions);
    }

    public RunSettings withShrinkCycles(int cycles) {
        return new RunSettings(seed, tries, rankCounts, runDeadline, stallTimeout, cycles, repetitions);
    }

    public RunSettings withRepetitions(int newRepetitions) {
        return new RunSettings(seed, tries, rankCounts, runDeadline, stallTimeout, shrinkCycles, newRepetitions);
    }
}
