package org.lockstep.tck;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import org.lockstep.conformance.RuleOutcome;

/**
 * What the self-test found: for each mutant, the rules run against it and what each did; and the
 * required rules that no mutant is there to test (each is a defect of the kit).
 *
 * @param mutants     one result per mutant
 * @param unmapped    required rules that are no mutant's designated killer
 * @param elapsed     how long it took
 */
public record SelfTestReport(List<MutantResult> mutants, List<String> unmapped, Duration elapsed) {
    /**
     * One mutant.
     *
     * @param id         its name
     * @param breakage   what it breaks
     * @param where      where the breakage sits
     * @param simulated  whether it imitates a symptom rather than breaking the real code
     * @param outcomes   its designated killers' outcomes (and, in a full matrix, every other rule's)
     * @param designated ids of its designated killers
     */
    public record MutantResult(String id, String breakage, String where, boolean simulated, List<RuleOutcome> outcomes,
                               List<String> designated) {
        public List<String> killedBy() {
            return outcomes.stream().filter(RuleOutcome::failed).map(o -> o.rule().id()).toList();
        }

        /** Designated killers that ran and passed: the rule does not catch what it is meant to. */
        public List<String> survivedDesignated() {
            return outcomes.stream().filter(o -> designated.contains(o.rule().id()) && o.passed()).map(o -> o.rule().id()).toList();
        }

        /** Designated killers that could not run against this target. */
        public List<String> notApplicable() {
            return outcomes.stream().filter(o -> designated.contains(o.rule().id()) && o.verdict() == RuleOutcome.Verdict.SKIPPED)
                    .map(o -> o.rule().id() + " (" + o.message() + ")").toList();
        }
    }

    public SelfTestReport {
        mutants = List.copyOf(mutants);
        unmapped = List.copyOf(unmapped);
    }

    /** Every designated killer that ran caught its mutant, and every required rule has a mutant. */
    public boolean ok() {
        return unmapped.isEmpty() && mutants.stream().allMatch(m -> m.survivedDesignated().isEmpty());
    }

    public String summary() {
        long killed = mutants.stream().filter(m -> !m.killedBy().isEmpty()).count();
        List<String> survivors = mutants.stream().filter(m -> !m.survivedDesignated().isEmpty())
                .map(m -> m.id() + " survived " + m.survivedDesignated()).toList();
        return "self-test " + (ok() ? "OK" : "FAILED") + ": " + killed + " of " + mutants.size() + " mutants killed"
                + (survivors.isEmpty() ? "" : "; " + String.join("; ", survivors))
                + (unmapped.isEmpty() ? "" : "; required rules no mutant tests: " + unmapped)
                + " (" + elapsed.toMillis() / 1000.0 + " s)";
    }

    /** The mutant table, in Markdown. */
    public String markdown() {
        StringBuilder b = new StringBuilder("# Lockstep TCK self-test\n\n").append(summary()).append("\n\n")
                .append("| mutant | where | breakage | designated killers | killed by | survived | not applicable | time |\n|---|---|---|---|---|---|---|---|\n");
        for (MutantResult m : mutants) {
            b.append("| ").append(m.id()).append(m.simulated() ? " (simulated)" : "").append(" | ").append(m.where()).append(" | ")
                    .append(m.breakage().replace("|", "\\|")).append(" | ").append(String.join(", ", m.designated())).append(" | ")
                    .append(String.join(", ", m.killedBy())).append(" | ").append(String.join(", ", m.survivedDesignated()))
                    .append(" | ").append(m.notApplicable().stream().collect(Collectors.joining("; "))).append(" | ")
                    .append(m.outcomes().stream().map(o -> o.rule().id() + " " + o.elapsed().toMillis() + " ms").collect(Collectors.joining(", ")))
                    .append(" |\n");
        }
        if (!unmapped.isEmpty()) {
            b.append("\nRequired rules that no mutant tests: ").append(unmapped).append('\n');
        }
        return b.toString();
    }
}
