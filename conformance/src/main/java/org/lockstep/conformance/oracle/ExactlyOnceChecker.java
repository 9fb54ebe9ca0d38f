package org.lockstep.conformance.oracle;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Exactly-once delivery: the multiset of received messages equals the set of sent ones — nothing
 * lost, nothing duplicated, nothing received that nobody sent.
 */
public final class ExactlyOnceChecker {
    private ExactlyOnceChecker() {
    }

    /**
     * @param sent        every message sent, each once
     * @param received    every message received, as identified (duplicates appear twice)
     * @param unexplained receives that could not be identified as any sent message
     * @return one line per problem; empty if delivery was exactly once
     */
    public static <M extends Comparable<M>> List<String> check(Collection<M> sent, Collection<M> received, Collection<String> unexplained) {
        List<String> problems = new ArrayList<>();
        Map<M, Integer> counts = new LinkedHashMap<>();
        for (M m : received) {
            counts.merge(m, 1, Integer::sum);
        }
        TreeSet<M> lost = new TreeSet<>();
        for (M m : sent) {
            if (!counts.containsKey(m)) {
                lost.add(m);
            }
        }
        counts.forEach((m, n) -> {
            if (n > 1) {
                problems.add(m + " was received " + n + " times");
            }
            if (!sent.contains(m)) {
                problems.add(m + " was received but never sent");
            }
        });
        if (!lost.isEmpty()) {
            problems.add("never received: " + lost);
        }
        for (String u : unexplained) {
            problems.add("received a message nobody sent: " + u);
        }
        return problems;
    }
}
