package org.lockstep.conformance;

/** A rule cannot run against this target (a capability it needs is not declared); carries the reason. */
public final class RuleSkipped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RuleSkipped(String reason) {
        super(reason);
    }
}
