package org.lockstep.conformance;

import java.util.OptionalLong;

/**
 * A rule did not hold. An {@link AssertionError}, so that test frameworks report it as a failure;
 * it carries what a report shows beyond the message: the seed that reproduces a generated failure
 * and the (shrunk) scenario or hang report.
 */
public class RuleViolation extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final String details;
    private final OptionalLong seed;

    public RuleViolation(String message) {
        this(message, "", OptionalLong.empty(), null);
    }

    public RuleViolation(String message, String details) {
        this(message, details, OptionalLong.empty(), null);
    }

    public RuleViolation(String message, String details, OptionalLong seed, Throwable cause) {
        super(message, cause);
        this.details = details == null ? "" : details;
        this.seed = seed;
    }

    /** Scenario, histories or hang report; empty if the message says it all. */
    public String details() {
        return details;
    }

    /** The seed that reproduces a failure of a generated scenario. */
    public OptionalLong seed() {
        return seed;
    }

    /** Fails with {@code message} unless {@code condition} holds. */
    public static void check(boolean condition, String message) {
        if (!condition) {
            throw new RuleViolation(message);
        }
    }

    /** Fails unless {@code actual} equals {@code expected}; {@code what} names the value. */
    public static void checkEquals(Object expected, Object actual, String what) {
        if (!java.util.Objects.equals(expected, actual)) {
            throw new RuleViolation(what + ": expected " + expected + ", got " + actual);
        }
    }
}
