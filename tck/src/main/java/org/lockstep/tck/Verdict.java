package org.lockstep.tck;

/** The kit's verdict on a provider, with the command's exit code. */
public enum Verdict {
    /** Every required rule (and every optional rule of a declared capability) passed. */
    COMPATIBLE(0),
    /** A required rule, or an optional rule of a declared capability, failed. */
    INCOMPATIBLE(1),
    /** Nothing could run: no such provider, no device, or every rule was skipped. */
    NOTHING_RAN(2);

    private final int exitCode;

    Verdict(int exitCode) {
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
