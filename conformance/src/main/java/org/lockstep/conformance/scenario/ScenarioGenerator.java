package org.lockstep.conformance.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.lockstep.api.Communicator;

/**
 * Builds a {@link Scenario} from a sequence of choices. The construction makes every scenario
 * complete under MPI semantics, whatever the timing and with no buffering assumed:
 * <ul>
 *   <li>messages have a global order; each rank's program visits the positions in that order,
 *       starting the send of message {@code i} (non-blocking) and making the receive generated for
 *       it at position {@code i}, and completing non-blocking receives at a later position;</li>
 *   <li>a {@link ReceivePattern#SPECIFIC} rank receives each channel's messages in send order, so
 *       by non-overtaking each receive gets exactly its intended message;</li>
 *   <li>a wildcard rank uses one kind of wildcard receive for all its messages, so at every
 *       position at least as many matching messages have been started as receives made: a count
 *       argument that holds whichever message each receive takes;</li>
 *   <li>sends are completed only at the end, so a synchronous send never blocks a program.</li>
 * </ul>
 * Choices are drawn so that lower values are simpler (fewer ranks and messages, smaller sizes,
 * blocking receives, no wildcards), which is the direction a shrinker moves them.
 */
public final class ScenarioGenerator {
    /** Extra buffer bytes of a receive that is given more room than its message. */
    public static final int SLACK = 16;
    /** Longest distance, in positions, from posting a non-blocking receive to completing it. */
    private static final int MAX_COMPLETION_DELAY = 3;
    private static final int MAX_CANCELS = 2;
    /** One message in this many is synchronous. */
    private static final int SYNCHRONOUS_ODDS = 4;

    private ScenarioGenerator() {
    }

    public static Scenario generate(ScenarioShape shape, Draws draws) {
        int ranks = shape.rankCounts().get(draws.between(0, shape.rankCounts().size() - 1));
        int count = draws.between(1, shape.maxMessages());
        List<Message> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int source = draws.between(0, ranks - 1);
            int dest = (source + 1 + draws.between(0, ranks - 1)) % ranks;
            int tag = draws.between(0, shape.tags() - 1);
            int bytes = shape.sizes().get(draws.between(0, shape.sizes().size() - 1));
            boolean synchronous = shape.synchronous() && draws.between(0, SYNCHRONOUS_ODDS - 1) == SYNCHRONOUS_ODDS - 1;
            messages.add(new Message(i, source, dest, tag, bytes, synchronous));
        }
        List<ReceivePattern> patterns = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            patterns.add(shape.wildcards() ? ReceivePattern.values()[draws.between(0, ReceivePattern.values().length - 1)]
                    : ReceivePattern.SPECIFIC);
        }
        List<Step.Style> styles = new ArrayList<>(List.of(Step.Style.BLOCKING));
        if (shape.immediates()) {
            styles.add(Step.Style.IMMEDIATE);
        }
        if (shape.probes()) {
            styles.add(Step.Style.PROBE_THEN_RECEIVE);
            styles.add(Step.Style.IPROBE_THEN_RECEIVE);
        }

        List<List<Step>> programs = new ArrayList<>(ranks);
        int[] receiveIndex = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            programs.add(new ArrayList<>());
        }
        // Non-blocking receives to complete at each position, per rank and completion style.
        List<Map<Integer, Map<Step.Completion, List<Integer>>>> completions = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            completions.add(new LinkedHashMap<>());
        }
        record PlannedCancel(int rank, int position, Step.CancelUnmatched step) {
        }
        List<PlannedCancel> cancels = new ArrayList<>();
        int cancelCount = shape.cancels() ? draws.between(0, MAX_CANCELS) : 0;
        for (int c = 0; c < cancelCount; c++) {
            int rank = draws.between(0, ranks - 1);
            int position = draws.between(0, count - 1);
            int source = draws.between(0, 1) == 0 ? Communicator.ANY_SOURCE : draws.between(0, ranks - 1);
            cancels.add(new PlannedCancel(rank, position, new Step.CancelUnmatched(new ReceiveSpec(source, Scenario.CANCEL_TAG))));
        }

        for (int p = 0; p < count; p++) {
            Message m = messages.get(p);
            for (int r = 0; r < ranks; r++) {
                List<Step> program = programs.get(r);
                for (PlannedCancel cancel : cancels) {
                    if (cancel.rank() == r && cancel.position() == p) {
                        program.add(cancel.step());
                    }
                }
                if (r == m.source()) {
                    program.add(new Step.Send(m.id()));
                }
                if (r == m.dest()) {
                    ReceiveSpec spec = spec(patterns.get(r), m, draws);
                    int capacity = capacity(shape, m, draws);
                    Step.Style style = styles.get(draws.between(0, styles.size() - 1));
                    int index = receiveIndex[r]++;
                    program.add(new Step.Receive(index, m.id(), spec, capacity, style));
                    if (style == Step.Style.IMMEDIATE) {
                        int at = Math.min(count - 1, p + draws.between(0, MAX_COMPLETION_DELAY));
                        Step.Completion how = Step.Completion.values()[draws.between(0, Step.Completion.values().length - 1)];
                        completions.get(r).computeIfAbsent(at, x -> new LinkedHashMap<>())
                                .computeIfAbsent(how, x -> new ArrayList<>()).add(index);
                    }
                }
                Map<Step.Completion, List<Integer>> due = completions.get(r).remove(p);
                if (due != null) {
                    due.forEach((how, indices) -> program.add(new Step.Complete(List.copyOf(indices), how)));
                }
            }
        }
        return new Scenario(ranks, messages, patterns, programs);
    }

    private static ReceiveSpec spec(ReceivePattern pattern, Message m, Draws draws) {
        return switch (pattern) {
            case SPECIFIC -> new ReceiveSpec(m.source(), draws.between(0, 1) == 0 ? m.tag() : Communicator.ANY_TAG);
            case ANY_SOURCE_BY_TAG -> new ReceiveSpec(Communicator.ANY_SOURCE, m.tag());
            case ANY_SOURCE_ANY_TAG -> new ReceiveSpec(Communicator.ANY_SOURCE, Communicator.ANY_TAG);
        };
    }

    private static int capacity(ScenarioShape shape, Message m, Draws draws) {
        int choice = draws.between(0, shape.truncation() ? 2 : 1);
        return switch (choice) {
            case 0 -> m.bytes();
            case 1 -> m.bytes() + SLACK;
            default -> m.bytes() / 2;
        };
    }
}
