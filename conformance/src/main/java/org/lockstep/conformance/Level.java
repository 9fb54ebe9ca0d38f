package org.lockstep.conformance;

/**
 * How a rule counts towards a verdict. A provider is compatible when every {@link #REQUIRED} rule
 * passes; {@link #OPTIONAL} rules run only when the provider declares the capability they test;
 * {@link #STOCHASTIC} rules probe races and fairness by repetition, so a pass is evidence, not proof.
 */
public enum Level {
    REQUIRED("required"),
    OPTIONAL("optional"),
    STOCHASTIC("stochastic");

    private final String prefix;

    Level(String prefix) {
        this.prefix = prefix;
    }

    /** The prefix of verification method names, e.g. {@code required}. */
    public String prefix() {
        return prefix;
    }
}
