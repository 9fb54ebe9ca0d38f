package org.lockstep.conformance.internal;

import static org.quicktheories.QuickTheory.qt;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.lockstep.conformance.scenario.Scenario;
import org.lockstep.conformance.scenario.ScenarioGenerator;
import org.lockstep.conformance.scenario.ScenarioShape;
import org.lockstep.conformance.scenario.SearchResult;
import org.quicktheories.api.AsString;
import org.quicktheories.core.Gen;
import org.quicktheories.core.Reporter;
import org.quicktheories.impl.Constraint;

/**
 * The scenario search on QuickTheories: scenarios are drawn from its randomness source, so its
 * shrinker (which shrinks the draws) shrinks them. Kept out of the public API.
 */
public final class QuickTheoriesSearch {
    private QuickTheoriesSearch() {
    }

    /** Why a scenario failed, thrown inside the property so that QuickTheories shrinks it. */
    private static final class Falsified extends AssertionError {
        private static final long serialVersionUID = 1L;
        final transient Scenario scenario;
        final transient List<String> problems;

        Falsified(Scenario scenario, List<String> problems) {
            super(String.join("\n", problems));
            this.scenario = scenario;
            this.problems = problems;
        }
    }

    public static SearchResult search(ScenarioShape shape, long seed, int tries, int shrinkCycles, Duration shrinkBudget,
                                      Function<Scenario, List<String>> property) {
        Gen<Scenario> scenarios = in -> ScenarioGenerator.generate(shape,
                (low, high) -> low == high ? low : (int) in.next(Constraint.between(low, high)));
        AtomicInteger examples = new AtomicInteger();
        AtomicInteger failing = new AtomicInteger();
        long[] firstFailure = {0};
        Falsified[] smallest = new Falsified[1];
        Reporter reporter = new Reporter() {
            @Override
            public void falisification(long s, int used, Object value, Throwable cause, List<Object> others, AsString<Object> asString) {
                if (cause instanceof Falsified f) {
                    keep(f);
                }
            }

            @Override
            public void falisification(long s, int used, Object value, List<Object> others, AsString<Object> asString) {
                // a falsification without an exception cannot come from checkAssert
            }

            @Override
            public void valuesExhausted(int used) {
                // fewer distinct scenarios than tries: fine
            }

            private void keep(Falsified f) {
                if (smallest[0] == null || f.scenario.weight() < smallest[0].scenario.weight()) {
                    smallest[0] = f;
                }
            }
        };
        qt().withFixedSeed(seed).withExamples(tries).withShrinkCycles(shrinkCycles).withReporter(reporter)
                .forAll(scenarios.describedAs(Scenario::describe))
                .checkAssert(scenario -> {
                    if (smallest[0] != null && System.nanoTime() - firstFailure[0] > shrinkBudget.toNanos()) {
                        return; // out of shrinking time: report the smallest failure so far
                    }
                    if (smallest[0] == null) {
                        examples.incrementAndGet();
                    }
                    List<String> problems = property.apply(scenario);
                    if (!problems.isEmpty()) {
                        Falsified f = new Falsified(scenario, problems);
                        if (smallest[0] == null) {
                            firstFailure[0] = System.nanoTime();
                        }
                        failing.incrementAndGet();
                        if (smallest[0] == null || scenario.weight() < smallest[0].scenario.weight()) {
                            smallest[0] = f;
                        }
                        throw f;
                    }
                });
        Optional<SearchResult.Failure> failure = Optional.ofNullable(smallest[0])
                .map(f -> new SearchResult.Failure(f.scenario, f.problems, failing.get()));
        return new SearchResult(seed, examples.get(), failure);
    }
}
