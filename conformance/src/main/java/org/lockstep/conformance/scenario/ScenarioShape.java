package org.lockstep.conformance.scenario;

import java.util.List;

/**
 * The space scenarios are drawn from.
 *
 * @param rankCounts   world sizes to draw from (shrinking prefers the first)
 * @param maxMessages  most messages in one scenario
 * @param tags         tags are drawn from {@code [0, tags)}
 * @param sizes        message sizes to draw from (shrinking prefers the first), e.g. around a threshold
 * @param synchronous  whether some messages are sent with {@code issend}
 * @param probes       whether some receives probe first
 * @param immediates   whether some receives are {@code irecv}s completed later, in several ways
 * @param cancels      whether programs cancel unmatched receives
 * @param wildcards    whether ranks may receive with {@code ANY_SOURCE}
 * @param truncation   whether some receives get a buffer shorter than their message
 */
public record ScenarioShape(List<Integer> rankCounts, int maxMessages, int tags, List<Integer> sizes, boolean synchronous,
                            boolean probes, boolean immediates, boolean cancels, boolean wildcards, boolean truncation) {
    public ScenarioShape {
        rankCounts = List.copyOf(rankCounts);
        sizes = List.copyOf(sizes);
        if (rankCounts.isEmpty() || sizes.isEmpty() || maxMessages < 1 || tags < 1) {
            throw new IllegalArgumentException("a shape needs rank counts, sizes, messages and tags");
        }
    }

    /** Sizes that straddle a threshold {@code t}: 0, 1, a word, t-1, t, t+1, and multiples. */
    public static List<Integer> sizesAround(int threshold) {
        return List.of(0, 1, 8, 63, Math.max(threshold - 1, 2), threshold, threshold + 1, 2 * threshold + 3, 5 * threshold + 7);
    }

    /** Everything on, within {@code rankCounts} and {@code maxMessages}. */
    public static ScenarioShape full(List<Integer> rankCounts, int maxMessages, List<Integer> sizes) {
        return new ScenarioShape(rankCounts, maxMessages, 3, sizes, true, true, true, true, true, true);
    }

    public ScenarioShape withoutWildcards() {
        return new ScenarioShape(rankCounts, maxMessages, tags, sizes, synchronous, probes, immediates, cancels, false, truncation);
    }

    public ScenarioShape withMaxMessages(int most) {
        return new ScenarioShape(rankCounts, most, tags, sizes, synchronous, probes, immediates, cancels, wildcards, truncation);
    }
}
