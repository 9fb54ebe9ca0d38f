package org.lockstep.conformance.scenario;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import org.lockstep.conformance.internal.QuickTheoriesSearch;

/**
 * Searches generated scenarios for one that breaks a property, and shrinks a failure to a small
 * scenario. The search is seeded: the same seed tries the same scenarios. The generator library
 * behind it stays out of this API; {@link ScenarioGenerator} with any {@link Draws} produces the
 * same scenarios for other drivers.
 */
public final class ScenarioSearch {
    private ScenarioSearch() {
    }

    /**
     * Tries up to {@code tries} scenarios of {@code shape}; on the first failure, shrinks it for at
     * most {@code shrinkCycles} steps and {@code shrinkBudget} of time.
     *
     * @param property the problems of one scenario, empty if it passed
     */
    public static SearchResult search(ScenarioShape shape, long seed, int tries, int shrinkCycles, Duration shrinkBudget,
                                      Function<Scenario, List<String>> property) {
        return QuickTheoriesSearch.search(shape, seed, tries, shrinkCycles, shrinkBudget, property);
    }
}
