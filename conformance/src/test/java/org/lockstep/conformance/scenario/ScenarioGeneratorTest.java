package org.lockstep.conformance.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class ScenarioGeneratorTest {
    private static final ScenarioShape SHAPE = ScenarioShape.full(List.of(1, 2, 3, 4), 16, ScenarioShape.sizesAround(64));

    @Test
    void everyGeneratedScenarioCompletesInTheReferenceRunAndDeterministicRanksGetTheirIntendedMessages() {
        for (int seed = 0; seed < 500; seed++) {
            Scenario s = ScenarioGenerator.generate(SHAPE, Draws.of(new SplittableRandom(seed)));
            Map<ReferenceRun.ReceiveKey, Integer> matches = ReferenceRun.matches(s);
            for (int r = 0; r < s.ranks(); r++) {
                for (Step step : s.programs().get(r)) {
                    if (step instanceof Step.Receive rv) {
                        Integer got = matches.get(new ReferenceRun.ReceiveKey(r, rv.index()));
                        assertTrue(got != null, "seed " + seed + ": receive without a match\n" + s);
                        if (s.patterns().get(r) == ReceivePattern.SPECIFIC) {
                            assertEquals(rv.intended(), got, "seed " + seed + "\n" + s);
                        } else {
                            assertTrue(rv.spec().matches(s.messages().get(got)), "seed " + seed + "\n" + s);
                        }
                    }
                }
            }
        }
    }

    @Test
    void theSameDrawsGiveTheSameScenarioAndTheLowestDrawsTheSmallest() {
        assertEquals(ScenarioGenerator.generate(SHAPE, Draws.of(new SplittableRandom(7))).describe(),
                ScenarioGenerator.generate(SHAPE, Draws.of(new SplittableRandom(7))).describe());
        Scenario smallest = ScenarioGenerator.generate(SHAPE, (low, high) -> low);
        assertEquals(1, smallest.ranks());
        assertEquals(1, smallest.messages().size());
        assertEquals(0, smallest.messages().getFirst().bytes());
    }

    @Test
    void aSearchShrinksAFailureAndReplaysFromItsSeed() {
        // A property that fails for scenarios of 4 or more messages: shrinking must get down to 4.
        SearchResult first = ScenarioSearch.search(SHAPE, 11, 200, 500, Duration.ofSeconds(30),
                s -> s.messages().size() >= 4 ? List.of("too many messages") : List.of());
        assertTrue(first.failure().isPresent());
        assertEquals(4, first.failure().get().scenario().messages().size(), first.failure().get().scenario().describe());
        SearchResult again = ScenarioSearch.search(SHAPE, 11, 200, 500, Duration.ofSeconds(30),
                s -> s.messages().size() >= 4 ? List.of("too many messages") : List.of());
        assertEquals(first.failure().get().scenario().describe(), again.failure().get().scenario().describe(), "same seed, same result");
    }

    @Test
    void aPassingSearchReportsHowManyScenariosItTried() {
        AtomicInteger seen = new AtomicInteger();
        SearchResult r = ScenarioSearch.search(SHAPE, 3, 40, 10, Duration.ofSeconds(5), s -> {
            seen.incrementAndGet();
            return List.of();
        });
        assertTrue(r.passed());
        // at most the tries asked for (the generator library skips a scenario it has already drawn)
        assertTrue(seen.get() <= 40 && seen.get() >= 30, seen.get() + " scenarios tried");
        assertEquals(seen.get(), r.examples());
    }
}
