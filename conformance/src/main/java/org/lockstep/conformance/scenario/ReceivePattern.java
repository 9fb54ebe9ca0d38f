package org.lockstep.conformance.scenario;

/**
 * How one rank of a scenario receives. Each is safe by construction (every receive finds a message
 * whatever the timing); only {@link #SPECIFIC} is deterministic, so only there does the reference
 * matching engine say exactly which message each receive gets.
 */
public enum ReceivePattern {
    /** A specific source; the tag or {@code ANY_TAG}. MPI fixes the outcome. */
    SPECIFIC,
    /** {@code ANY_SOURCE} with a specific tag. */
    ANY_SOURCE_BY_TAG,
    /** {@code ANY_SOURCE} and {@code ANY_TAG}. */
    ANY_SOURCE_ANY_TAG
}
