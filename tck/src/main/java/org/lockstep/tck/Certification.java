package org.lockstep.tck;

import java.time.Duration;
import java.util.List;

import org.lockstep.conformance.RunSettings;

/**
 * Certification mode: a fixed, published list of seeds and fixed effort, so that two runs of the
 * same provider try the same scenarios and reach the same verdict (up to the timing of its threads,
 * which stochastic rules sample on purpose). A provider is certified when every required rule
 * passes under every seed of the list.
 */
public final class Certification {
    /** The published seeds. Changing them is a new certification version. */
    public static final List<Long> SEEDS = List.of(0x4C4F_434B_5354_4550L, 1_000_003L, 20_250_101L);
    /** The version of this list and effort. */
    public static final String VERSION = "1";
    private static final int TRIES = 60;
    private static final int SHRINK_CYCLES = 1_000;
    private static final int REPETITIONS = 5;

    private Certification() {
    }

    /** The settings of one certification run with {@code seed}. */
    public static RunSettings settings(long seed) {
        return new RunSettings(seed, TRIES, RunSettings.DEFAULT_RANK_COUNTS, Duration.ofSeconds(60), Duration.ofSeconds(10),
                SHRINK_CYCLES, REPETITIONS);
    }
}
