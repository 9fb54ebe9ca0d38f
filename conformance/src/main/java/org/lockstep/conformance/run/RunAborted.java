package org.lockstep.conformance.run;

/**
 * Thrown inside a rank when the runner stops its world (deadline or deadlock). An {@link Error},
 * so that rule code that catches provider exceptions does not swallow it.
 */
public final class RunAborted extends Error {
    private static final long serialVersionUID = 1L;

    public RunAborted(String reason) {
        super(reason);
    }
}
