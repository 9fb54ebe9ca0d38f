package org.lockstep.conformance.scenario;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A generated program for a world of ranks: the messages in their global order, how each rank
 * receives, and each rank's steps. Built by {@link ScenarioGenerator} so that it always completes
 * under MPI semantics (whatever the timing and without relying on buffering), which makes every
 * deadlock or lost message the provider's.
 *
 * @param ranks    world size
 * @param messages every message, by id
 * @param patterns the receive pattern of each rank
 * @param programs each rank's steps
 */
public record Scenario(int ranks, List<Message> messages, List<ReceivePattern> patterns, List<List<Step>> programs) {
    /** The tag of the receives that {@link Step.CancelUnmatched} cancels: no message uses it. */
    public static final int CANCEL_TAG = 1_000_000;

    public Scenario {
        messages = List.copyOf(messages);
        patterns = List.copyOf(patterns);
        programs = programs.stream().map(List::copyOf).toList();
        if (patterns.size() != ranks || programs.size() != ranks) {
            throw new IllegalArgumentException("a scenario needs a pattern and a program per rank");
        }
    }

    /** A measure of size, for picking the smallest of several failures. */
    public long weight() {
        long bytes = messages.stream().mapToLong(Message::bytes).sum();
        return ranks * 1_000_000L + messages.size() * 10_000L + Math.min(bytes, 9_999);
    }

    /** Readable text of the whole scenario, for reports. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        b.append(ranks).append(" ranks, ").append(messages.size()).append(" messages\n");
        for (Message m : messages) {
            b.append("  ").append(m).append('\n');
        }
        for (int r = 0; r < ranks; r++) {
            b.append("  rank ").append(r).append(" (").append(patterns.get(r).name().toLowerCase(java.util.Locale.ROOT)).append("): ")
                    .append(programs.get(r).stream().map(Step::toString).collect(Collectors.joining("; "))).append('\n');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return describe();
    }
}
