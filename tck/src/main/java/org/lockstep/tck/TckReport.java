package org.lockstep.tck;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.lockstep.conformance.Level;
import org.lockstep.conformance.RuleOutcome;

/**
 * What one run of the kit found.
 *
 * @param provider    the provider's name
 * @param description the provider's description, or why it could not run
 * @param target      what ran: provider and device
 * @param seeds       the seeds used (one, or the certification list)
 * @param settings    a one-line summary of the effort
 * @param started     when the run started
 * @param elapsed     how long it took
 * @param outcomes    one per rule that was considered, in catalog order
 * @param notes       anything the reader should know (e.g. what could not run)
 */
public record TckReport(String provider, String description, String target, List<Long> seeds, String settings, Instant started,
                        Duration elapsed, List<RuleOutcome> outcomes, List<String> notes) {
    public TckReport {
        seeds = List.copyOf(seeds);
        outcomes = List.copyOf(outcomes);
        notes = List.copyOf(notes);
    }

    /** A report of a run in which nothing could run. */
    public static TckReport nothingRan(String provider, String why, Instant started) {
        return new TckReport(provider, why, "-", List.of(), "-", started, Duration.between(started, Instant.now()), List.of(),
                List.of(why));
    }

    public Verdict verdict() {
        if (outcomes.stream().noneMatch(o -> o.verdict() != RuleOutcome.Verdict.SKIPPED)) {
            return Verdict.NOTHING_RAN;
        }
        boolean binding = outcomes.stream().anyMatch(o -> o.failed() && o.rule().level() != Level.STOCHASTIC);
        return binding ? Verdict.INCOMPATIBLE : Verdict.COMPATIBLE;
    }

    public long count(RuleOutcome.Verdict v) {
        return outcomes.stream().filter(o -> o.verdict() == v).count();
    }

    /** One line for a terminal. */
    public String summary() {
        return verdict() + ": " + provider + " — " + count(RuleOutcome.Verdict.PASSED) + " passed, " + count(RuleOutcome.Verdict.FAILED)
                + " failed, " + count(RuleOutcome.Verdict.SKIPPED) + " skipped of " + outcomes.size() + " rules in "
                + elapsed.toMillis() / 1000.0 + " s";
    }
}
