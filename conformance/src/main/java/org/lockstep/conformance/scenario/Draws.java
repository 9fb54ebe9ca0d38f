package org.lockstep.conformance.scenario;

/**
 * A source of choices for {@link ScenarioGenerator}. The kit backs it with its property-based
 * testing library (which shrinks by shrinking the choices towards their lower bounds); any other
 * source works as well, e.g. {@link #of(java.util.random.RandomGenerator)}.
 */
@FunctionalInterface
public interface Draws {
    /** A value in {@code [low, high]}; lower values are "simpler". */
    int between(int low, int high);

    /** Choices from a random generator (no shrinking). */
    static Draws of(java.util.random.RandomGenerator random) {
        return (low, high) -> low == high ? low : low + random.nextInt(high - low + 1);
    }
}
