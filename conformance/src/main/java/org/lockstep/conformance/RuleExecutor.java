package org.lockstep.conformance;

import java.time.Duration;
import java.util.OptionalLong;

import org.lockstep.conformance.run.RunAborted;

/** Runs one rule against one target and says what happened; never throws for the rule's outcome. */
public final class RuleExecutor {
    private RuleExecutor() {
    }

    /** Runs a messaging rule against {@code target}. */
    public static RuleOutcome run(Rule rule, MessagingTarget target, RunSettings settings) {
        if (!(rule.check() instanceof Rule.MessagingCheck check)) {
            throw new IllegalArgumentException(rule + " is not a messaging rule");
        }
        for (Capability c : rule.needs()) {
            if (!target.capabilities().has(c)) {
                return skipped(rule, "needs capability " + c + ", which " + target.name() + " does not declare");
            }
        }
        return timed(rule, () -> check.check(new MessagingRuleContext(rule, target, settings)));
    }

    /** Runs a device rule against {@code target}. */
    public static RuleOutcome run(Rule rule, DeviceTarget target, RunSettings settings) {
        if (!(rule.check() instanceof Rule.DeviceCheck check)) {
            throw new IllegalArgumentException(rule + " is not a device rule");
        }
        return timed(rule, () -> {
            try (DeviceRuleContext context = new DeviceRuleContext(target, settings)) {
                check.check(context);
            }
        });
    }

    private interface Body {
        void run() throws Exception;
    }

    private static RuleOutcome skipped(Rule rule, String reason) {
        return new RuleOutcome(rule, RuleOutcome.Verdict.SKIPPED, reason, "", OptionalLong.empty(), Duration.ZERO);
    }

    private static RuleOutcome timed(Rule rule, Body body) {
        long start = System.nanoTime();
        RuleOutcome.Verdict verdict = RuleOutcome.Verdict.PASSED;
        String message = "";
        String details = "";
        OptionalLong seed = OptionalLong.empty();
        try {
            body.run();
        } catch (RuleSkipped s) {
            verdict = RuleOutcome.Verdict.SKIPPED;
            message = s.getMessage();
        } catch (RuleViolation v) {
            verdict = RuleOutcome.Verdict.FAILED;
            message = v.getMessage();
            details = v.details() + (v.getCause() == null ? "" : "\ncaused by: " + stack(v.getCause()));
            seed = v.seed();
        } catch (RunAborted a) {
            verdict = RuleOutcome.Verdict.FAILED;
            message = "the run was stopped: " + a.getMessage();
        } catch (Throwable t) {
            verdict = RuleOutcome.Verdict.FAILED;
            message = "unexpected " + t;
            details = stack(t);
        }
        return new RuleOutcome(rule, verdict, message, details, seed, Duration.ofNanos(System.nanoTime() - start));
    }

    private static String stack(Throwable t) {
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        return w.toString();
    }
}
