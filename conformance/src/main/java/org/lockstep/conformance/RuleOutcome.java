package org.lockstep.conformance;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What one rule did against one target.
 *
 * @param rule     the rule
 * @param verdict  passed, failed or skipped
 * @param message  why it failed or was skipped; empty when it passed
 * @param details  shrunk scenario, histories or hang report of a failure
 * @param seed     the seed that reproduces a generated failure
 * @param elapsed  wall time
 */
public record RuleOutcome(Rule rule, Verdict verdict, String message, String details, OptionalLong seed, Duration elapsed) {
    /** The three outcomes of a rule. */
    public enum Verdict { PASSED, FAILED, SKIPPED }

    public RuleOutcome {
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(verdict, "verdict");
        message = message == null ? "" : message;
        details = details == null ? "" : details;
    }

    public boolean failed() {
        return verdict == Verdict.FAILED;
    }

    public boolean passed() {
        return verdict == Verdict.PASSED;
    }
}
