package org.lockstep.conformance.scenario;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.lockstep.conformance.oracle.ReferenceMatchingEngine;

/**
 * Runs a scenario on the {@link ReferenceMatchingEngine}, one step at a time, with no concurrency:
 * what MPI says must match what. On a {@link ReceivePattern#SPECIFIC} rank that is the only legal
 * outcome; on a wildcard rank it is one of several. It also confirms that the scenario completes
 * (a scenario that cannot is a generator bug, never the provider's fault).
 */
public final class ReferenceRun {
    /** A receive of a scenario: its rank and its index there. */
    public record ReceiveKey(int rank, int index) {
    }

    private ReferenceRun() {
    }

    /**
     * The message each receive gets in the reference run.
     *
     * @throws IllegalStateException if the scenario cannot complete
     */
    public static Map<ReceiveKey, Integer> matches(Scenario scenario) {
        int ranks = scenario.ranks();
        List<ReferenceMatchingEngine<Integer, ReceiveKey>> engines = new java.util.ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            engines.add(new ReferenceMatchingEngine<>());
        }
        Map<ReceiveKey, Integer> matched = new HashMap<>();
        Set<ReceiveKey> posted = new HashSet<>();
        int[] pc = new int[ranks];
        int cancelKeys = 0;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int r = 0; r < ranks; r++) {
                List<Step> program = scenario.programs().get(r);
                while (pc[r] < program.size()) {
                    Step step = program.get(pc[r]);
                    boolean advanced;
                    switch (step) {
                        case Step.Send s -> {
                            Message m = scenario.messages().get(s.message());
                            engines.get(m.dest()).arrive(m.id(), m.source(), m.tag()).ifPresent(k -> matched.put(k, m.id()));
                            advanced = true;
                        }
                        case Step.Receive rv -> {
                            ReceiveKey key = new ReceiveKey(r, rv.index());
                            ReferenceMatchingEngine<Integer, ReceiveKey> engine = engines.get(r);
                            switch (rv.style()) {
                                case BLOCKING, IMMEDIATE -> {
                                    if (posted.add(key)) {
                                        engine.post(key, rv.spec().source(), rv.spec().tag()).ifPresent(id -> matched.put(key, id));
                                        changed = true;
                                    }
                                    advanced = rv.style() == Step.Style.IMMEDIATE || matched.containsKey(key);
                                }
                                default -> {
                                    Optional<ReferenceMatchingEngine.Envelope<Integer>> probed =
                                            engine.probe(rv.spec().source(), rv.spec().tag());
                                    advanced = probed.isPresent();
                                    if (advanced) {
                                        ReferenceMatchingEngine.Envelope<Integer> e = probed.get();
                                        Integer got = engine.post(key, e.source(), e.tag()).orElseThrow(() ->
                                                new IllegalStateException("a receive for a probed message did not take it"));
                                        matched.put(key, got);
                                    }
                                }
                            }
                        }
                        case Step.Complete c -> {
                            int rank = r;
                            advanced = c.receives().stream().allMatch(i -> matched.containsKey(new ReceiveKey(rank, i)));
                        }
                        case Step.CancelUnmatched c -> {
                            ReceiveKey key = new ReceiveKey(r, -1 - cancelKeys++);
                            if (engines.get(r).post(key, c.spec().source(), c.spec().tag()).isPresent() || !engines.get(r).cancel(key)) {
                                throw new IllegalStateException("an unmatched receive matched in the reference run");
                            }
                            advanced = true;
                        }
                    }
                    if (!advanced) {
                        break;
                    }
                    pc[r]++;
                    changed = true;
                }
            }
        }
        for (int r = 0; r < ranks; r++) {
            if (pc[r] < scenario.programs().get(r).size()) {
                throw new IllegalStateException("the scenario cannot complete: rank " + r + " is stuck at "
                        + scenario.programs().get(r).get(pc[r]) + "\n" + scenario.describe());
            }
        }
        return matched;
    }
}
