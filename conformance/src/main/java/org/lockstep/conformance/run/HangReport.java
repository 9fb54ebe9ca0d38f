package org.lockstep.conformance.run;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Why a run was stopped (its deadline passed, or every rank sat blocked with nothing completing)
 * and, per rank, its last operation, its recent operations and its thread's stack.
 *
 * @param reason what happened
 * @param ranks  one entry per rank
 */
public record HangReport(String reason, List<RankSnapshot> ranks) {
    /**
     * One rank when the run was stopped.
     *
     * @param rank       the rank
     * @param state      finished, failed, or the operation in progress with how long it had taken
     * @param recent     its most recent completed operations, oldest first
     * @param stack      its thread's stack (empty if the rank never started)
     */
    public record RankSnapshot(int rank, String state, List<Event> recent, String stack) {
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(reason).append('\n');
        for (RankSnapshot r : ranks) {
            b.append("rank ").append(r.rank()).append(": ").append(r.state()).append('\n');
            if (!r.recent().isEmpty()) {
                b.append("  last operations:\n").append(r.recent().stream().map(e -> "    " + e)
                        .collect(Collectors.joining("\n"))).append('\n');
            }
            if (!r.stack().isEmpty()) {
                b.append("  thread:\n").append(r.stack());
            }
        }
        return b.toString();
    }
}
