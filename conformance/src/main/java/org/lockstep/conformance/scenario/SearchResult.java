package org.lockstep.conformance.scenario;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of searching for a scenario that breaks a property.
 *
 * @param seed      the seed of the search (running it again with this seed replays it)
 * @param examples  scenarios tried
 * @param failure   the smallest failing scenario found and its problems, if any failed
 */
public record SearchResult(long seed, int examples, Optional<Failure> failure) {
    /**
     * A failing scenario after shrinking.
     *
     * @param scenario the smallest failing scenario found
     * @param problems what was wrong with it
     * @param failingScenarios how many failing scenarios were seen while shrinking
     */
    public record Failure(Scenario scenario, List<String> problems, int failingScenarios) {
    }

    public boolean passed() {
        return failure.isEmpty();
    }
}
